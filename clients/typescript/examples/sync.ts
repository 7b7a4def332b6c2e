import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { createReceivablesClient, type operations, type ReceivablesClient, type Schema } from '../src/index.js';

/**
 * A sample integration: an ERP that keeps a copy of the business's dues.
 * - creates a due with an Idempotency-Key, so that a retry after a timeout never makes two;
 * - records money the buyer sent as a receipt against the contact (it pays the contact's open
 *   dues, oldest first), again with an Idempotency-Key;
 * - keeps its copy current by incremental sync: it lists the dues updated since the newest change
 *   it has seen (less a few seconds of overlap), page by page with starting_after, and keeps the
 *   newest version of each due by updated_at (a deleted one comes with deleted_at).
 *
 * Run it against a server (a key from `npm run -s cli -- demo` or `key issue`):
 *   API=http://localhost:3000 KEY=rk_live_... npx tsx clients/typescript/examples/sync.ts
 */

type Due = Schema<'Transaction'>;
type NewDue = operations['createTransaction']['requestBody']['content']['application/json'];

/** Seconds of overlap between polls: a change committed while the last poll ran is read again. */
const OVERLAP_MS = 5_000;

export class DueCopy {
  readonly dues = new Map<string, Due>();
  private since: string | undefined;

  constructor(private readonly api: ReceivablesClient) {}

  /**
   * Reads every due changed since the last poll; answers how many versions it read. The next poll
   * starts a few seconds before the newest updated_at read (the server's clock, not this one's).
   */
  async poll(): Promise<number> {
    let newest: string | undefined;
    let read = 0;
    let after: string | undefined;
    for (;;) {
      const { data, error } = await this.api.GET('/v1/transactions', {
        params: {
          query: {
            since: this.since ?? '1970-01-01T00:00:00.000Z',
            include_deleted: true,
            limit: 200,
            ...(after !== undefined && { starting_after: after }),
          },
        },
      });
      if (error) throw new Error(`listing dues failed: ${error.error.code}: ${error.error.message}`);
      for (const due of data.data) {
        this.keep(due);
        if (newest === undefined || due.updated_at > newest) newest = due.updated_at;
      }
      read += data.data.length;
      const last = data.data.at(-1);
      if (!data.hasMore || last === undefined) break;
      after = last.id;
    }
    if (newest !== undefined) this.since = new Date(Date.parse(newest) - OVERLAP_MS).toISOString();
    return read;
  }

  /** The newest version wins: one read again through the overlap changes nothing. */
  private keep(due: Due) {
    const held = this.dues.get(due.id);
    if (held === undefined || held.updated_at <= due.updated_at) this.dues.set(due.id, due);
  }
}

/** Creates a due once, however often it is retried with the same key. */
export async function createDueOnce(
  api: ReceivablesClient,
  body: NewDue,
  idempotencyKey: string = randomUUID(),
): Promise<{ due: Due; replayed: boolean }> {
  const { data, error, response } = await api.POST('/v1/transactions', {
    params: { header: { 'idempotency-key': idempotencyKey } },
    body,
  });
  if (error) throw new Error(`creating the due failed: ${error.error.code}: ${error.error.message}`);
  return { due: data.data, replayed: response.headers.get('idempotent-replayed') === 'true' };
}

/** Records a receipt from the due's buyer; answers the receipt and the dues it paid. */
export async function recordReceipt(
  api: ReceivablesClient,
  contactId: string,
  body: operations['createReceipt']['requestBody']['content']['application/json'],
  idempotencyKey: string = randomUUID(),
): Promise<{ receipt: Schema<'Receipt'>; paid: Due[] }> {
  const { data, error } = await api.POST('/v1/contacts/{id}/payments', {
    params: { path: { id: contactId }, header: { 'idempotency-key': idempotencyKey } },
    body,
  });
  if (error) throw new Error(`recording the receipt failed: ${error.error.code}: ${error.error.message}`);
  return { receipt: data.data.receipt, paid: data.data.transactions };
}

export interface SampleResult {
  created: Due;
  retried: { due: Due; replayed: boolean };
  receipt: Schema<'Receipt'>;
  copied: number;
  paidInCopy: Due | undefined;
}

/** The whole sample: create (and retry), sync, receive the money, sync again. */
export async function runSample(options: { baseUrl: string; apiKey: string }): Promise<SampleResult> {
  const api = createReceivablesClient(options);
  const copy = new DueCopy(api);
  await copy.poll();

  const key = randomUUID();
  const body = { contact_name: 'Sample Integration Buyer', amount_paise: 250_000, due_date: '2026-12-31' };
  const { due: created } = await createDueOnce(api, body, key);
  const retried = await createDueOnce(api, body, key);

  await copy.poll();
  const { receipt } = await recordReceipt(api, created.contact_id, {
    amount_paise: created.balance_paise,
    utr: 'SAMPLEUTR42',
    payment_method: 'upi',
  });
  await copy.poll();
  return { created, retried, receipt, copied: copy.dues.size, paidInCopy: copy.dues.get(created.id) };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const baseUrl = process.env.API ?? 'http://localhost:3000';
  const apiKey = process.env.KEY;
  if (!apiKey) {
    console.error('set KEY to an API key (npm run -s cli -- key issue --business ID)');
    process.exit(2);
  }
  runSample({ baseUrl, apiKey }).then(
    (result) =>
      console.log(
        JSON.stringify({ created: result.created.id, receipt: result.receipt.id, copied: result.copied }, null, 2),
      ),
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    },
  );
}
