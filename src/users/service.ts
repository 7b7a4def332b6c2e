import { type AuditChange, diff, recordAudit } from '../audit/record.js';
import { isUniqueViolation } from '../db/errors.js';
import type { Db, Executor, Role } from '../db/schema.js';
import { errors } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import { isUuid, uuidv7 } from '../lib/ids.js';
import { normalisePhone } from '../lib/phone.js';
import { isCleanText } from '../lib/text.js';
import * as repo from './repository.js';
import { STAFF_ROLES } from './schema.js';

export interface AddUserInput {
  name: string;
  phone: string;
  role: string;
}

/** What the audit log keeps of a user added or removed, the owner included (PRODUCT part 23). */
export const AUDITED_USER_FIELDS = ['name', 'phone', 'role'] as const satisfies readonly (keyof repo.UserRow)[];
/** Entries per insert when a removal unassigns many buyers. */
const AUDIT_BATCH = 500;

/** A role the owner may give staff, or a 400 naming `role`. */
function staffRole(role: string): Role {
  if (!(STAFF_ROLES as readonly string[]).includes(role)) {
    throw errors.invalid('role', `role must be one of ${STAFF_ROLES.join(', ')}`);
  }
  return role as Role;
}

/** A user of the business by id, or a 404 (a text that is no id too). */
async function userOf(db: Executor, businessId: string, id: string): Promise<repo.UserRow> {
  const user = isUuid(id) ? await repo.findUser(db, businessId, id.toLowerCase()) : undefined;
  if (!user) throw errors.notFound('user');
  return user;
}

/** A business's users: its owner and the staff the owner adds and removes. */
export class UserService {
  constructor(private readonly deps: { db: Db; clock: Clock }) {}

  list(businessId: string) {
    return repo.listUsers(this.deps.db, businessId);
  }

  get(businessId: string, id: string) {
    return userOf(this.deps.db, businessId, id);
  }

  /** Each of these users' name by id (the assignees of a page of buyers); unknown ids are left out. */
  async namesOf(businessId: string, ids: Iterable<string>): Promise<Map<string, string>> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return new Map();
    const rows = await repo.userNamesByIds(this.deps.db, businessId, unique);
    return new Map(rows.map((r) => [r.id, r.name]));
  }

  async add(businessId: string, input: AddUserInput): Promise<repo.UserRow> {
    const business = await repo.businessCountry(this.deps.db, businessId);
    if (!business) throw errors.notFound('business');
    const name = input.name.trim();
    if (name.length < 2 || name.length > 120 || !isCleanText(name)) {
      throw errors.invalid('name', 'name must be 2-120 characters of text');
    }
    const phone = normalisePhone(input.phone.trim().slice(0, 40), business.country);
    if (!phone) throw errors.invalid('phone', 'phone is not a valid phone number');
    const role = staffRole(input.role);
    const now = this.deps.clock.now();
    const user: repo.UserRow = {
      id: uuidv7(now.getTime()),
      business_id: businessId,
      name,
      phone,
      role,
      created_at: now.toISOString(),
    };
    try {
      await this.deps.db.transaction().execute(async (trx) => {
        await repo.insertUser(trx, user);
        await recordAudit(trx, businessId, now, [
          { action: 'user.added', entity: 'user', entityId: user.id, changes: diff(null, user, AUDITED_USER_FIELDS) },
        ]);
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw errors.conflict('this phone is already a user of the business', 'phone');
      throw error;
    }
    return user;
  }

  /**
   * Gives a staff user another staff role, from their next request on (a session reads its user's
   * role each time). The owner's role is the business's: refused. The same role writes nothing.
   */
  async changeRole(businessId: string, id: string, newRole: string): Promise<repo.UserRow> {
    const role = staffRole(newRole);
    return this.deps.db.transaction().execute(async (trx) => {
      const user = await userOf(trx, businessId, id);
      if (user.role === 'owner') throw errors.conflict("the owner's role cannot be changed", 'user');
      if (user.role === role) return user;
      const changed = { ...user, role };
      await repo.setUserRole(trx, businessId, user.id, role);
      await recordAudit(trx, businessId, this.deps.clock.now(), [
        { action: 'user.updated', entity: 'user', entityId: user.id, changes: diff(user, changed, ['role']) },
      ]);
      return changed;
    });
  }

  /** Removes a staff user and ends their sessions; the owner stays. */
  async remove(businessId: string, id: string): Promise<repo.UserRow> {
    return this.deps.db.transaction().execute(async (trx) => {
      if (!(await repo.businessCountry(trx, businessId))) throw errors.notFound('business');
      const user = await userOf(trx, businessId, id);
      if (user.role === 'owner') throw errors.conflict('the owner cannot be removed', 'user');
      const now = this.deps.clock.now().toISOString();
      const unassigned = await repo.deleteUser(trx, businessId, user.id, now);
      // The user's entry, then each buyer that was assigned to them (their assigned_to is audited).
      const entries: AuditChange[] = [
        { action: 'user.removed', entity: 'user', entityId: user.id, changes: diff(user, null, AUDITED_USER_FIELDS) },
        ...unassigned.map((contactId) => ({
          action: 'contact.updated',
          entity: 'contact' as const,
          entityId: contactId,
          changes: { assigned_to: [user.id, null] as [string, null] },
        })),
      ];
      for (let i = 0; i < entries.length; i += AUDIT_BATCH) {
        await recordAudit(trx, businessId, now, entries.slice(i, i + AUDIT_BATCH));
      }
      return user;
    });
  }
}
