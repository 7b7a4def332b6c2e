import { insertClaim } from '../claims/repository.js';
import type { Db } from '../db/schema.js';
import type { Clock } from '../lib/clock.js';
import { localDate } from '../lib/dates.js';
import { uuidv7 } from '../lib/ids.js';
import { isCleanText } from '../lib/text.js';
import type { RateLimitStore } from '../rate-limit/port.js';
import { balanceOf, effectiveStatus } from '../transactions/domain.js';
import * as repo from './repository.js';

/** Account tokens are lib/ids.ts randomToken (base64url); nothing else exists. */
const TOKEN_RE = /^[A-Za-z0-9_-]{16,64}$/;

/** The dues listed on the page, oldest first; a longer account says how many more there are. */
export const DUES_SHOWN = 20;
/** The latest payments listed. */
export const RECEIPTS_SHOWN = 5;
export const REFERENCE_MAX = 60;
/** The largest amount a claim takes, in paise (₹1,000 crore): nobody reports more by hand. */
export const CLAIM_MAX_PAISE = 10_000_000_000_00;

export interface AccountPage {
  contactId: string;
  businessId: string;
  businessName: string;
  contactName: string;
  /** the contact's language, else the business's */
  language: string;
  currency: string;
  country: string;
  timezone: string;
  /** open dues less credit: what the page and its UPI link ask for when above 0 */
  balancePaise: number;
  creditPaise: number;
  dues: { id: string; dueDate: string; invoiceNumber: string | null; balancePaise: number; overdue: boolean }[];
  /** whether more open dues exist than are listed */
  moreDues: boolean;
  receipts: { amountPaise: number; receivedOn: string; reversed: boolean }[];
  /** the account's short reference, first in the UPI note so a bank statement names the account */
  paymentReference: string | null;
  upiId: string | null;
  pendingClaim: { amountPaise: number; reference: string | null; createdAt: string } | null;
}

export type AccountClaimError = 'amount' | 'reference';

export type AccountClaimOutcome =
  | { kind: 'recorded' }
  | { kind: 'not_found' }
  | { kind: 'invalid'; page: AccountPage; field: AccountClaimError; form: { amount: string; reference: string } }
  | { kind: 'rate_limited'; page: AccountPage; retryAfterSeconds: number };

export interface ClaimLimit {
  max: number;
  windowMs: number;
}

/**
 * An amount as a buyer types it, in rupees ("1500", "1,500.50", "₹ 1,500"), as exact paise; null
 * when it is not an amount above zero within CLAIM_MAX_PAISE.
 */
export function parseRupees(text: string): number | null {
  const cleaned = text.replace(/[₹,\s]/g, '').replace(/^rs\.?/i, '');
  const match = /^(\d{1,13})(?:\.(\d{1,2}))?$/.exec(cleaned);
  if (!match) return null;
  const paise = Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
  return paise >= 1 && paise <= CLAIM_MAX_PAISE ? paise : null;
}

/**
 * The buyer's account page: what a buyer holding the link may see (their open dues, balance and
 * latest payments; never the business's notes or references), and the "I have paid" account claim,
 * which the business then confirms (a receipt, oldest dues first) or rejects.
 */
export class AccountPageService {
  private readonly limit: ClaimLimit;

  constructor(private readonly deps: { db: Db; clock: Clock; rateLimits: RateLimitStore; claimLimit?: ClaimLimit }) {
    this.limit = deps.claimLimit ?? { max: 5, windowMs: 60 * 60 * 1000 };
  }

  /** For the token of a buyer merged into another: the kept buyer's token, where its page is now. */
  async movedTo(token: string): Promise<string | null> {
    if (!TOKEN_RE.test(token)) return null;
    return repo.forwardedToken(this.deps.db, token);
  }

  /** The page behind a token, or null for a token that is malformed or unknown (the same answer). */
  async view(token: string): Promise<AccountPage | null> {
    if (!TOKEN_RE.test(token)) return null;
    const { db } = this.deps;
    const row = await repo.findAccountByToken(db, token);
    if (!row) return null;
    const [dues, receipts, claim] = [
      await repo.openDues(db, row.business_id, row.id, DUES_SHOWN + 1),
      await repo.latestReceipts(db, row.business_id, row.id, RECEIPTS_SHOWN),
      await repo.latestPendingClaim(db, row.id),
    ];
    const today = localDate(row.timezone, this.deps.clock.now());
    return {
      contactId: row.id,
      businessId: row.business_id,
      businessName: row.business_name,
      contactName: row.contact_name,
      language: row.language ?? row.business_language,
      currency: row.currency,
      country: row.country,
      timezone: row.timezone,
      balancePaise: Number(row.balance_paise),
      creditPaise: Number(row.credit_paise),
      dues: dues.slice(0, DUES_SHOWN).map((d) => ({
        id: d.id,
        dueDate: d.due_date,
        invoiceNumber: d.invoice_number,
        balancePaise: balanceOf(d),
        overdue: effectiveStatus(d, today) === 'overdue',
      })),
      moreDues: dues.length > DUES_SHOWN,
      receipts: receipts.map((r) => ({
        amountPaise: Number(r.amount_paise),
        receivedOn: r.received_on,
        reversed: r.reversed_at !== null,
      })),
      paymentReference: row.payment_reference,
      upiId: row.upi_id,
      pendingClaim: claim
        ? { amountPaise: Number(claim.amount_paise), reference: claim.reference, createdAt: claim.created_at }
        : null,
    };
  }

  /**
   * Records an account claim: the amount the buyer says they paid (required) and an optional
   * reference (a UTR or a note, up to 60 characters). Limited per account, so a leaked link cannot
   * fill the business's queue without bound.
   */
  async claim(token: string, form: { amount?: string | undefined; reference?: string | undefined }) {
    const page = await this.view(token);
    if (!page) return { kind: 'not_found' } as const;
    const entered = { amount: (form.amount ?? '').trim(), reference: (form.reference ?? '').trim() };
    const amountPaise = parseRupees(entered.amount);
    const invalid = (field: AccountClaimError): AccountClaimOutcome => ({
      kind: 'invalid',
      page,
      field,
      form: entered,
    });
    if (amountPaise === null) return invalid('amount');
    if (entered.reference.length > REFERENCE_MAX || !isCleanText(entered.reference)) return invalid('reference');

    const { count, resetInMs } = await this.deps.rateLimits.hit(`account-claim:${page.contactId}`, this.limit.windowMs);
    if (count > this.limit.max) {
      return { kind: 'rate_limited', page, retryAfterSeconds: Math.max(1, Math.ceil(resetInMs / 1000)) } as const;
    }
    const now = this.deps.clock.now();
    await insertClaim(this.deps.db, {
      id: uuidv7(now.getTime()),
      business_id: page.businessId,
      transaction_id: null,
      contact_id: page.contactId,
      amount_paise: amountPaise,
      reference: entered.reference === '' ? null : entered.reference,
      created_at: now.toISOString(),
      status: 'pending',
      decided_at: null,
    });
    return { kind: 'recorded' } as const;
  }
}
