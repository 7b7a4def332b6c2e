import { type Kysely, sql } from 'kysely';
import { columnTypes } from '../column-types.js';

/**
 * `contacts.oldest_open_due`: the due date of the contact's oldest open due ('9999-12-31' when
 * nothing is open, so that such contacts sort last on both stores), kept by triggers on
 * transactions in the transaction of every change, and indexed: the contacts list sorted by it
 * (`sort=oldest_due`) reads a page, not the business. A due closing or moving later looks the
 * next one up through the partial index on open dues (one index probe).
 */
const NONE = '9999-12-31';

export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  // PostgreSQL runs pending migrations in one transaction: the data-version triggers an earlier
  // migration's updates of contacts queued (deferred to COMMIT) would forbid altering the table.
  // Fired now, they leave nothing pending.
  if (t.isPostgres) await sql`set constraints all immediate`.execute(db);
  await db.schema
    .alterTable('contacts')
    .addColumn('oldest_open_due', t.date, (c) => c.notNull().defaultTo(NONE))
    .execute();
  await db.schema
    .createIndex('contacts_business_oldest_due')
    .on('contacts')
    .columns(['business_id', 'oldest_open_due', 'id'])
    .execute();
  const recompute = (contact: string) => `coalesce((select min(due_date) from transactions
      where contact_id = ${contact} and open = 1), '${NONE}')`;
  if (t.isPostgres) {
    await sql
      .raw(`create function contact_oldest_due() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then
          if new.open = 1 then
            update contacts set oldest_open_due = new.due_date where id = new.contact_id and oldest_open_due > new.due_date;
          end if;
        elsif old.open = 1 and (new.open <> 1 or new.due_date > old.due_date) then
          update contacts set oldest_open_due = ${recompute('new.contact_id')} where id = new.contact_id;
        elsif new.open = 1 and (old.open <> 1 or new.due_date < old.due_date) then
          update contacts set oldest_open_due = new.due_date where id = new.contact_id and oldest_open_due > new.due_date;
        end if;
        return null;
      end $$`)
      .execute(db);
    await sql
      .raw(`create trigger transactions_contact_oldest_due after insert or update of open, due_date on transactions
        for each row execute function contact_oldest_due()`)
      .execute(db);
  } else {
    const lower = `update contacts set oldest_open_due = new.due_date where id = new.contact_id and oldest_open_due > new.due_date;`;
    await sql
      .raw(`create trigger transactions_contact_oldest_due_insert after insert on transactions when new.open = 1
        begin ${lower} end`)
      .execute(db);
    await sql
      .raw(`create trigger transactions_contact_oldest_due_earlier after update of open, due_date on transactions
        when new.open = 1 and (old.open <> 1 or new.due_date < old.due_date)
        begin ${lower} end`)
      .execute(db);
    await sql
      .raw(`create trigger transactions_contact_oldest_due_later after update of open, due_date on transactions
        when old.open = 1 and (new.open <> 1 or new.due_date > old.due_date)
        begin update contacts set oldest_open_due = ${recompute('new.contact_id')} where id = new.contact_id; end`)
      .execute(db);
  }
  // Last (PostgreSQL): updating contacts queues their data-version triggers.
  await sql`update contacts set oldest_open_due = o.due from (
      select contact_id, min(due_date) as due from transactions where open = 1 group by contact_id) o
    where o.contact_id = contacts.id`.execute(db);
  // And what this update queued, so that later migrations in the same transaction may alter contacts.
  if (t.isPostgres) await sql`set constraints all immediate`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (columnTypes(db).isPostgres) {
    await sql`drop trigger transactions_contact_oldest_due on transactions`.execute(db);
    await sql`drop function contact_oldest_due()`.execute(db);
  } else {
    for (const name of ['insert', 'earlier', 'later']) {
      await sql.raw(`drop trigger transactions_contact_oldest_due_${name}`).execute(db);
    }
  }
  await db.schema.dropIndex('contacts_business_oldest_due').execute();
  await db.schema.alterTable('contacts').dropColumn('oldest_open_due').execute();
}
