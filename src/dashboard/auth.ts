import { randomInt, timingSafeEqual } from 'node:crypto';
import type { BusinessRow } from '../businesses/repository.js';
import { findBusiness, lockBusiness } from '../businesses/repository.js';
import type { ChatChannel } from '../channels/channel.js';
import type { Db, Role } from '../db/schema.js';
import { errors } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import { isUuid, randomToken, sha256Hex, uuidv7 } from '../lib/ids.js';
import { normalisePhone } from '../lib/phone.js';
import type { RateLimitStore } from '../rate-limit/port.js';
import { findUser, membershipsByPhone } from '../users/repository.js';
import * as repo from './repository.js';

/** PRODUCT part 14 (contract): codes live 10 minutes and take 5 tries; links 15 minutes, one use. */
export const CODE_TTL_MS = 10 * 60_000;
export const CODE_TRIES = 5;
export const LINK_TTL_MS = 15 * 60_000;
export const SESSION_TTL_MS = 30 * 24 * 60 * 60_000;
/** At most this many codes per phone per hour, and per client address per hour. */
export const CODES_PER_PHONE_HOUR = 5;
export const CODES_PER_ADDRESS_HOUR = 20;
const HOUR_MS = 60 * 60_000;
/**
 * The WhatsApp authentication template the sign-in code goes out as (README: templates to register;
 * category Authentication, with a copy-code button): "{{1}} is your verification code."
 */
export const SIGN_IN_TEMPLATE = 'dashboard_sign_in_code';

/** Who is signed in: the owner or one of the staff (PRODUCT part 23). */
export interface SessionUser {
  id: string;
  name: string;
  role: Role;
}

export interface DashboardSession {
  business: BusinessRow;
  user: SessionUser;
  csrfToken: string;
}

export type CodeRequestOutcome =
  | { kind: 'sent' }
  | { kind: 'invalid_phone' }
  | { kind: 'rate_limited'; retryAfterSeconds: number };

export type SignInOutcome = { kind: 'signed_in'; token: string } | { kind: 'invalid' };

function codeHash(phone: string, code: string): string {
  return sha256Hex(`dashboard-code:${phone}:${code}`);
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Sign-in and sessions of the business's dashboard. Nothing here tells whether a phone belongs to a
 * business: an unknown phone gets the same answer as a known one.
 */
export class DashboardAuth {
  constructor(
    private readonly deps: {
      db: Db;
      clock: Clock;
      channel: ChatChannel;
      rateLimits: RateLimitStore;
      publicBaseUrl: string;
    },
  ) {}

  /** Sends a 6-digit code for each business this phone is a user of (one message each). */
  async requestCode(phoneInput: string, clientAddress: string): Promise<CodeRequestOutcome> {
    const phone = normalisePhone(phoneInput.trim(), 'IN');
    if (!phone) return { kind: 'invalid_phone' };
    const address = await this.deps.rateLimits.hit(`dashboard-code:${clientAddress}`, HOUR_MS);
    if (address.count > CODES_PER_ADDRESS_HOUR) {
      return { kind: 'rate_limited', retryAfterSeconds: Math.ceil(address.resetInMs / 1000) };
    }
    const now = this.deps.clock.now();
    const since = new Date(now.getTime() - HOUR_MS).toISOString();
    const memberships = await membershipsByPhone(this.deps.db, phone);
    let limited = memberships.length > 0;
    for (const { user_id, user_role: _, ...business } of memberships) {
      const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
      // Counted and written under the business's row lock (one writer on SQLite): concurrent
      // requests cannot all see the same count and each add a code past the limit.
      const stored = await this.deps.db.transaction().execute(async (trx) => {
        if (!(await lockBusiness(trx, business.id))) return false;
        if ((await repo.countCodesSince(trx, phone, business.id, since)) >= CODES_PER_PHONE_HOUR) return false;
        await repo.insertLogin(trx, {
          id: uuidv7(now.getTime()),
          business_id: business.id,
          kind: 'code',
          phone,
          user_id,
          secret_hash: codeHash(phone, code),
          created_at: now.toISOString(),
          expires_at: new Date(now.getTime() + CODE_TTL_MS).toISOString(),
          used_at: null,
        });
        return true;
      });
      if (!stored) continue;
      limited = false;
      // An approved authentication template: the owner has usually not written to the service's
      // number in the last 24 hours, and WhatsApp delivers nothing else to start a conversation.
      await this.deps.channel.send(
        {
          kind: 'template',
          to: phone,
          template: SIGN_IN_TEMPLATE,
          language: business.language,
          parameters: [code],
          copyCode: code,
        },
        { purpose: 'sign_in_code', businessId: business.id },
      );
    }
    if (limited) return { kind: 'rate_limited', retryAfterSeconds: 3600 };
    return { kind: 'sent' };
  }

  /**
   * A code is tried against every live code of the phone; each try counts against all of them, and
   * is spent (atomically, in the store) before the comparison: a burst of concurrent guesses gets
   * at most CODE_TRIES comparisons per code, never one per guess.
   */
  async verifyCode(phoneInput: string, code: string): Promise<SignInOutcome> {
    const phone = normalisePhone(phoneInput.trim(), 'IN');
    if (!phone || !/^\d{6}$/.test(code.trim())) return { kind: 'invalid' };
    const now = this.deps.clock.now().toISOString();
    const hash = codeHash(phone, code.trim());
    let match: { id: string; business_id: string; user_id: string | null } | undefined;
    for (const id of await repo.liveCodeIds(this.deps.db, phone, now, CODE_TRIES)) {
      const spent = await repo.spendAttempt(this.deps.db, id, now, CODE_TRIES);
      if (spent && !match && sameSecret(spent.secret_hash, hash)) match = spent;
    }
    if (!match || !(await repo.useLogin(this.deps.db, match.id, now))) return { kind: 'invalid' };
    return { kind: 'signed_in', token: await this.#startSession(match.business_id, match.user_id) };
  }

  /** The admin CLI's one-time link (`login-link --business ID [--user USER_ID]`). */
  async createLink(businessId: string, userId?: string): Promise<string> {
    return createLoginLink(this.deps, businessId, userId);
  }

  async useLink(token: string): Promise<SignInOutcome> {
    if (!/^[A-Za-z0-9_-]{16,64}$/.test(token)) return { kind: 'invalid' };
    const row = await repo.findLinkByHash(this.deps.db, sha256Hex(token));
    if (!row || !(await repo.useLogin(this.deps.db, row.id, this.deps.clock.now().toISOString()))) {
      return { kind: 'invalid' };
    }
    return { kind: 'signed_in', token: await this.#startSession(row.business_id, row.user_id) };
  }

  async session(token: string | undefined): Promise<DashboardSession | null> {
    if (!token || token.length > 100) return null;
    const row = await repo.findSession(this.deps.db, sha256Hex(token), this.deps.clock.now().toISOString());
    if (!row) return null;
    const { csrf_token, session_expires_at: _, user_id, user_name, user_role, ...business } = row;
    return { business, user: { id: user_id, name: user_name, role: user_role }, csrfToken: csrf_token };
  }

  checkCsrf(session: DashboardSession, submitted: unknown): boolean {
    return typeof submitted === 'string' && sameSecret(submitted, session.csrfToken);
  }

  async signOut(token: string | undefined): Promise<void> {
    if (token) await repo.deleteSession(this.deps.db, sha256Hex(token));
  }

  /** A code or link older than users signs in the owner (whose user id is the business's). */
  async #startSession(businessId: string, userId: string | null): Promise<string> {
    const token = randomToken(32);
    const now = this.deps.clock.now();
    await repo.insertSession(this.deps.db, {
      token_hash: sha256Hex(token),
      business_id: businessId,
      user_id: userId ?? businessId,
      csrf_token: randomToken(18),
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + SESSION_TTL_MS).toISOString(),
    });
    return token;
  }
}

/**
 * A one-time sign-in link (15 minutes, one use) for one user of the business (default: the owner);
 * needs only the store, so that the admin CLI makes one without the rest of the sign-in machinery.
 */
export async function createLoginLink(
  deps: { db: Db; clock: Clock; publicBaseUrl: string },
  businessId: string,
  userId: string = businessId,
): Promise<string> {
  if (!(await findBusiness(deps.db, businessId))) throw errors.notFound('business');
  if (!isUuid(userId) || !(await findUser(deps.db, businessId, userId.toLowerCase()))) throw errors.notFound('user');
  const token = randomToken(24);
  const now = deps.clock.now();
  await repo.insertLogin(deps.db, {
    id: uuidv7(now.getTime()),
    business_id: businessId,
    kind: 'link',
    phone: null,
    user_id: userId.toLowerCase(),
    secret_hash: sha256Hex(token),
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + LINK_TTL_MS).toISOString(),
    used_at: null,
  });
  return `${deps.publicBaseUrl.replace(/\/$/, '')}/dashboard/login/${token}`;
}
