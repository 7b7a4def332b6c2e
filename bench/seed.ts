import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { migrate, openStore } from '../src/db/store.js';
import { systemClock } from '../src/lib/clock.js';
import { createServices } from '../src/services.js';
import { overdueSweeper } from '../src/workers/overdue-sweeper.js';

/**
 * Bench data, made through the service's own code (same rows, same totals, same events as the
 * API would write), many rows per database transaction so that a million dues take a minute or
 * two rather than an hour. Kept in bench/.data (git-ignored) and reused while the sizes match.
 */

export interface BenchData {
  dues: number;
  contacts: number;
  apiKey: string;
  /** a second business with few dues: the summary latency baseline */
  smallApiKey: string;
  smallDues: number;
  dueIds: string[];
  contactIds: string[];
}

export const BENCH_DIR = path.resolve(import.meta.dirname, '.data');

const BATCH = 100;

function dayOffset(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
}

export async function seed(opts: { dues: number; contacts: number; smallDues: number; fresh?: boolean }) {
  const dataDir = path.join(BENCH_DIR, `sqlite-${opts.dues}`);
  const meta = path.join(dataDir, 'bench.json');
  if (!opts.fresh && existsSync(meta)) {
    const data = JSON.parse(readFileSync(meta, 'utf8')) as BenchData;
    if (data.dues === opts.dues && data.contacts === opts.contacts && data.smallDues === opts.smallDues) {
      return { dataDir, data };
    }
  }
  rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(dataDir, { recursive: true });

  const config = loadConfig({ DATA_DIR: dataDir });
  const store = openStore(config);
  await migrate(store.db);
  const services = createServices({ store, clock: systemClock, config });
  const started = Date.now();
  try {
    const big = await services.businesses.create({ name: 'Bench Traders', phone: '+91 90000 00001' });
    const small = await services.businesses.create({ name: 'Small Bench Traders', phone: '+91 90000 00002' });

    const contactIds: string[] = [];
    for (let from = 0; from < opts.contacts; from += BATCH) {
      await store.db.transaction().execute(async (trx) => {
        for (let i = from; i < Math.min(from + BATCH, opts.contacts); i++) {
          const phone = `+91 9${String(100_000_000 + i).slice(1)}1`;
          const { contact } = await services.contacts.createIn(trx, big.business, { name: `Buyer ${i} Stores`, phone });
          contactIds.push(contact.id);
        }
      });
      progress('contacts', contactIds.length, opts.contacts, started);
    }

    const dueIds: string[] = [];
    // Due dates from a year ago to two months ahead: mostly overdue, the rest pending.
    const createDues = async (business: typeof big.business, count: number, contacts: string[], keep: string[]) => {
      for (let from = 0; from < count; from += BATCH) {
        await store.db.transaction().execute(async (trx) => {
          for (let i = from; i < Math.min(from + BATCH, count); i++) {
            const input = {
              amount_paise: 10_000 + ((i * 7919) % 5_000_000),
              due_date: dayOffset(-365 + ((i * 31) % 425)),
              ...(contacts.length > 0
                ? { contact_id: contacts[(i * 104_729) % contacts.length] as string }
                : { contact_name: `Small Buyer ${i % 50}` }),
              invoice_number: `INV-${i}`,
            };
            const { transaction } = await services.transactions.createIn(trx, business, input);
            if (keep.length < 10_000 && i % 97 === 0) keep.push(transaction.id);
          }
        });
        if (count >= 100_000) progress('dues', Math.min(from + BATCH, count), count, started);
      }
    };
    await createDues(big.business, opts.dues, contactIds, dueIds);
    await createDues(small.business, opts.smallDues, [], []);
    // A share of the dues paid, through mark-paid itself.
    const paid = Math.min(2000, Math.floor(dueIds.length / 5));
    for (const id of dueIds.slice(0, paid)) {
      await services.transactions.markPaid(big.business, id, { utr: `UTR${id.slice(-8)}`, payment_method: 'upi' });
    }

    // What a running deployment's sweeper does: past-due pending dues become stored overdue.
    const sweeper = overdueSweeper({ db: store.db, clock: systemClock });
    const signal = new AbortController().signal;
    while ((await sweeper.runOnce(signal)) > 0) progress('overdue sweep', 0, 1, started);

    const data: BenchData = {
      dues: opts.dues,
      contacts: opts.contacts,
      apiKey: big.apiKey,
      smallApiKey: small.apiKey,
      smallDues: opts.smallDues,
      dueIds: dueIds.slice(paid, paid + 1000),
      contactIds: contactIds.slice(0, 1000),
    };
    writeFileSync(meta, JSON.stringify(data));
    process.stderr.write(`seeded in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
    return { dataDir, data };
  } finally {
    await services.webhookSender.close();
    await store.close();
  }
}

function progress(what: string, done: number, total: number, started: number) {
  if (total === 1) {
    process.stderr.write(`\r  ${what}...   `);
    return;
  }
  const rate = done / ((Date.now() - started) / 1000);
  process.stderr.write(`\r  ${what}: ${done}/${total} (${rate.toFixed(0)}/s)   ${done >= total ? '\n' : ''}`);
}
