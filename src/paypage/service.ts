import { insertClaim } from '../claims/repository.js';
import type { Db } from '../db/schema.js';
import { type Language, languageOf } from '../i18n/index.js';
import type { Clock } from '../lib/clock.js';
import { localDate } from '../lib/dates.js';
import { uuidv7 } from '../lib/ids.js';
import { isCleanText } from '../lib/text.js';
import type { RateLimitStore } from '../rate-limit/port.js';
import { balanceOf, effectiveStatus } from '../transactions/domain.js';
import type { PageError } from './pages.js';
import * as repo from './repository.js';

/** Tokens are hex and base64url (lib/ids.ts timeOrderedToken; older dues: randomToken); nothing else exists. */
const TOKEN_RE = /^[A-Za-z0-9_-]{16,64}$/;

export const REFERENCE_MAX = 60;

export interface PayPage {
  transactionId: string;
  businessId: string;
  businessName: string;
  contactName: string;
  amountPaise: number;
  /** what is still owed: the page and its UPI link ask for this */
  balancePaise: number;
  payments: { amountPaise: number; createdAt: string }[];
  /** a deleted due's page says it is no longer payable (HTTP 410) */
  deleted: boolean;
  currency: string;
  country: string;
  timezone: string;
  /** the buyer's language, else the business's: every word, date and number of the page */
  language: Language;
  status: 'pending' | 'overdue' | 'paid';
  dueDate: string;
  paidAt: string | null;
  invoiceNumber: string | null;
  /** the due's short reference, first in the UPI note so a bank statement names the due */
  paymentReference: string | null;
  // No notes: they are the business's own and never on the page (PRODUCT part 8).
  upiId: string | null;
  claimCount: number;
  lastClaim: { reference: string | null; createdAt: string } | null;
}

export type ClaimOutcome =
  | { kind: 'recorded'; claimCount: number }
  | { kind: 'paid' }
  | { kind: 'not_found' }
  | { kind: 'deleted'; page: PayPage }
  | { kind: 'invalid'; page: PayPage; error: PageError }
  | { kind: 'rate_limited'; retryAfterSeconds: number; language: Language };

export interface ClaimLimit {
  max: number;
  windowMs: number;
}

/**
 * The hosted pay page (PRODUCT part 8): what a buyer holding the link may see, and the "I have
 * paid" claim. A claim is only recorded and counted (transactions.claim_count, the earlier
 * shape's `claimCount`); it changes no status and notifies nothing else yet.
 */
export class PayPageService {
  private readonly limit: ClaimLimit;

  constructor(
    private readonly deps: {
      db: Db;
      clock: Clock;
      rateLimits: RateLimitStore;
      claimLimit?: ClaimLimit;
    },
  ) {
    this.limit = deps.claimLimit ?? { max: 5, windowMs: 60 * 60 * 1000 };
  }

  /** The page behind a token, or null for a token that is malformed or unknown (the same answer). */
  async view(token: string): Promise<PayPage | null> {
    if (!TOKEN_RE.test(token)) return null;
    const row = await repo.findPayPageByToken(this.deps.db, token);
    if (!row) return null;
    const last = row.claim_count > 0 ? await repo.latestClaim(this.deps.db, row.id) : undefined;
    const payments = Number(row.amount_paid_paise) > 0 ? await repo.paymentsOf(this.deps.db, row.id) : [];
    const today = localDate(row.timezone, this.deps.clock.now());
    return {
      transactionId: row.id,
      businessId: row.business_id,
      businessName: row.business_name,
      contactName: row.contact_name,
      amountPaise: Number(row.amount_paise),
      balancePaise: balanceOf(row),
      payments: payments.map((p) => ({ amountPaise: Number(p.amount_paise), createdAt: p.created_at })),
      deleted: row.deleted_at !== null,
      currency: row.currency,
      country: row.country,
      timezone: row.timezone,
      language: languageOf(row.contact_language ?? row.business_language),
      status: effectiveStatus(row, today) as PayPage['status'],
      dueDate: row.due_date,
      paidAt: row.paid_at,
      invoiceNumber: row.invoice_number,
      paymentReference: row.payment_reference,
      upiId: row.upi_id,
      claimCount: row.claim_count,
      lastClaim: last ? { reference: last.reference, createdAt: last.created_at } : null,
    };
  }

  /**
   * Records an "I have paid" claim with an optional reference (a UTR or a note, up to 60 chars).
   * A paid due takes no claim. Claims are limited per due, so a leaked link cannot inflate the
   * count without bound.
   */
  async claim(token: string, input: { reference?: string | undefined }): Promise<ClaimOutcome> {
    const page = await this.view(token);
    if (!page) return { kind: 'not_found' };
    if (page.deleted) return { kind: 'deleted', page };
    if (page.status === 'paid') return { kind: 'paid' };

    const reference = (input.reference ?? '').trim();
    if (reference.length > REFERENCE_MAX) {
      return { kind: 'invalid', page, error: { key: 'pay.reference_too_long', params: { max: REFERENCE_MAX } } };
    }
    if (!isCleanText(reference)) {
      return { kind: 'invalid', page, error: { key: 'pay.reference_unprintable' } };
    }

    const { count, resetInMs } = await this.deps.rateLimits.hit(
      `paypage-claim:${page.transactionId}`,
      this.limit.windowMs,
    );
    if (count > this.limit.max) {
      return {
        kind: 'rate_limited',
        retryAfterSeconds: Math.max(1, Math.ceil(resetInMs / 1000)),
        language: page.language,
      };
    }

    const now = this.deps.clock.now();
    return this.deps.db.transaction().execute(async (trx): Promise<ClaimOutcome> => {
      // Counted first and only while open, so a due paid concurrently gets no claim row.
      const counted = await repo.countClaimIfOpen(trx, page.transactionId, now.toISOString());
      if (!counted) return { kind: 'paid' };
      await insertClaim(trx, {
        id: uuidv7(now.getTime()),
        business_id: page.businessId,
        transaction_id: page.transactionId,
        reference: reference === '' ? null : reference,
        created_at: now.toISOString(),
        status: 'pending',
        decided_at: null,
      });
      return { kind: 'recorded', claimCount: counted.claim_count };
    });
  }
}
