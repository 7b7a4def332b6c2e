import Fastify from 'fastify';
import pg from 'pg';

/**
 * The reference point on PostgreSQL: Fastify (no logging, no hooks, no authentication)
 * answering each benchmarked read with ONE named prepared `pg` query returning what the API's
 * answer is made of: GET one due (the due and its contact's name and phone), the summary (the
 * running totals with the past-due pending part and this month's payments) and a contact with its
 * balances and recent dues. argv[2]: the database URL; argv[3]: the business id. Pool of 10, as the API's default.
 */
const pool = new pg.Pool({ connectionString: process.argv[2] as string, max: 10 });
const businessId = process.argv[3] as string;

const oneDue = {
  name: 'ref_one_due',
  text: `select t.*, c.name as contact_name, c.phone as contact_phone from transactions t
         join contacts c on c.id = t.contact_id
         where t.business_id = $1 and t.id = $2 and t.deleted_at is null`,
};
const summary = {
  name: 'ref_summary',
  text: `select sum(bt.pending_count) as pending_count, sum(bt.pending_paise) as pending_paise,
           sum(bt.overdue_count) as overdue_count, sum(bt.overdue_paise) as overdue_paise,
           sum(bt.paid_count) as paid_count, sum(bt.paid_paise) as paid_paise, sum(bt.contact_count) as contact_count,
           (select coalesce(sum(due_count), 0) from pending_by_day where business_id = $1 and due_date < $2) as past_count,
           (select coalesce(sum(due_paise), 0) from pending_by_day where business_id = $1 and due_date < $2) as past_paise,
           (select sum(due_paise) from paid_by_month where business_id = $1 and month = $3) as paid_month_paise
         from business_totals bt where bt.business_id = $1`,
};
// The same answer as the API's: balances and the (up to 200) most recent dues its score is computed from.
const contact = {
  name: 'ref_contact',
  text: `select c.*, b.*, (select json_agg(json_build_array(r.amount_paise, r.due_date, r.paid_at)) from (
             select amount_paise, due_date, paid_at from transactions
             where business_id = $1 and contact_id = $2 and open >= 0
             order by due_date desc, created_at desc limit 200) r) as recent_dues
         from contacts c left join (
           select contact_id, count(*) as total_transactions,
             coalesce(sum(case when open = 1 then amount_paise - amount_paid_paise else 0 end), 0) as outstanding_paise,
             coalesce(sum(case when open = 1 and due_date >= $3 then 1 else 0 end), 0) as pending_count,
             coalesce(sum(case when open = 1 and due_date < $3 then 1 else 0 end), 0) as overdue_count
           from transactions where business_id = $1 and contact_id = $2 and open >= 0 group by contact_id) b
           on b.contact_id = c.id
         where c.business_id = $1 and c.id = $2`,
};

const today = () => new Date().toISOString().slice(0, 10);
const app = Fastify({ logger: false });
const notFound = { error: { code: 'not_found', message: 'not found' } };
app.get<{ Params: { id: string } }>('/v1/transactions/:id', async (request, reply) => {
  const { rows } = await pool.query({ ...oneDue, values: [businessId, request.params.id] });
  return rows[0] ? { data: rows[0] } : reply.code(404).send(notFound);
});
app.get('/v1/summary', async () => {
  const { rows } = await pool.query({ ...summary, values: [businessId, today(), today().slice(0, 7)] });
  return { data: rows[0] };
});
app.get<{ Params: { id: string } }>('/v1/contacts/:id', async (request, reply) => {
  const { rows } = await pool.query({ ...contact, values: [businessId, request.params.id, today()] });
  return rows[0] ? { data: rows[0] } : reply.code(404).send(notFound);
});
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.stdout.write('fastify-raw ready\n');
process.on('SIGTERM', () =>
  app
    .close()
    .then(() => pool.end())
    .then(() => process.exit(0)),
);
