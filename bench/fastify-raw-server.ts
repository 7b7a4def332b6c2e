import BetterSqlite3 from 'better-sqlite3';
import Fastify from 'fastify';

/**
 * The reference point: Fastify (no logging, no hooks) answering GET /v1/transactions/:id
 * with one raw better-sqlite3 primary-key read of the same row the API reads (the due with its
 * contact's name and phone), no authentication. The API's "GET one due" is compared with it to
 * show what the rest of the API's work costs. argv[2]: the SQLite file.
 */
const db = new BetterSqlite3(process.argv[2] as string, { readonly: true });
const read = db.prepare(
  'select t.*, c.name as contact_name, c.phone as contact_phone from transactions t join contacts c on c.id = t.contact_id where t.id = ?',
);
const app = Fastify({ logger: false });
app.get<{ Params: { id: string } }>('/v1/transactions/:id', async (request, reply) => {
  const row = read.get(request.params.id);
  if (!row) return reply.code(404).send({ error: { code: 'not_found', message: 'transaction not found' } });
  return { data: row };
});
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.stdout.write('fastify-raw ready\n');
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
