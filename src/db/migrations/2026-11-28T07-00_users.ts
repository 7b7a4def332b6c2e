import { type Kysely, sql } from 'kysely';
import { columnTypes } from '../column-types.js';

/**
 * Staff and roles: a business's `users` (the owner and the staff the owner adds). The owner's row
 * has the business's own id and phone, so every business has one from the start (written here for
 * the businesses that exist). Sign-in codes and links name the user they are for, and a session
 * the user it belongs to (existing ones: the owner's). A contact may be assigned to one user.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable('users')
    .addColumn('id', t.uuid, (c) => c.primaryKey())
    .addColumn('business_id', t.uuid, (c) => c.notNull().references('businesses.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('phone', 'text', (c) => c.notNull())
    // owner | accountant | collector | viewer
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute();
  // One user per phone within a business; sign-in finds a phone's users across businesses.
  await db.schema.createIndex('users_business_phone').unique().on('users').columns(['business_id', 'phone']).execute();
  await db.schema.createIndex('users_phone').on('users').column('phone').execute();
  await sql`insert into users (id, business_id, name, phone, role, created_at)
            select id, id, name, phone, 'owner', created_at from businesses`.execute(db);

  await db.schema.alterTable('dashboard_logins').addColumn('user_id', t.uuid).execute();
  await db.schema.alterTable('dashboard_sessions').addColumn('user_id', t.uuid).execute();
  await sql`update dashboard_sessions set user_id = business_id`.execute(db);
  await sql`update dashboard_logins set user_id = business_id`.execute(db);
  // Removing a user ends their sessions: found by user.
  await db.schema.createIndex('dashboard_sessions_user').on('dashboard_sessions').column('user_id').execute();

  await db.schema.alterTable('contacts').addColumn('assigned_to', t.uuid).execute();
  // A collector's buyers, and the assignments a removed user leaves behind.
  await db.schema
    .createIndex('contacts_assigned_to')
    .on('contacts')
    .columns(['assigned_to', 'name_key'])
    .where(sql.ref('assigned_to'), 'is not', null)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('contacts_assigned_to').execute();
  await db.schema.alterTable('contacts').dropColumn('assigned_to').execute();
  await db.schema.dropIndex('dashboard_sessions_user').execute();
  await db.schema.alterTable('dashboard_sessions').dropColumn('user_id').execute();
  await db.schema.alterTable('dashboard_logins').dropColumn('user_id').execute();
  await db.schema.dropTable('users').execute();
}
