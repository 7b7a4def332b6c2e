import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { type CompiledQuery, DefaultQueryExecutor, sql } from 'kysely';
import { loadConfig } from '../src/config.js';
import { insertRows } from '../src/db/insert-rows.js';
import type { Db } from '../src/db/schema.js';
import { migrate, openStore } from '../src/db/store.js';
import { systemClock } from '../src/lib/clock.js';
import { createServices } from '../src/services.js';

/**
 * A 20,000-line bank statement against a business with 100,000 open dues (and, for scale, the same
 * statement's shapes against a business with 1,000): the upload as the API runs it (parse, record
 * each credit once, rules 1-5, every receipt, total and event, one database transaction), timed
 * in-process; a bare node:http server receiving the same body over loopback is the floor. Then the
 * plan of every distinct query the big upload ran (EXPLAIN): none may scan the business's dues.
 *
 *   npx tsx bench/bank-match.ts                                  # SQLite
 *   npx tsx bench/bank-match.ts --postgres postgres://postgres@127.0.0.1:5432/throwaway
 *   npx tsx bench/bank-match.ts --dues 20000 --lines 4000        # smaller
 *   npx tsx bench/bank-match.ts --data DIR [--seed-only]         # SQLite kept in DIR: seeded once, reused
 *
 * Seeding 100,000 dues through the import takes long on a loaded machine: with `--data DIR`
 * (SQLite) or a `--postgres` database that is kept, a business already seeded is reused, and each
 * run's statement carries its own transaction references, so no line is a duplicate of an earlier
 * run's.
 */
const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const DUES = Number(arg('--dues') ?? 100_000);
const LINES = Number(arg('--lines') ?? 20_000);
const DATABASE_URL = arg('--postgres') ?? '';
const KEEP_DIR = arg('--data');
const SEED_ONLY = process.argv.includes('--seed-only');
/** This run's transaction references start here, so a rerun against kept data is new lines. */
const RUN = 600_000_000_000 + (Math.floor(Date.now() / 1000) % 290_000) * 100_000;
const IMPORT_ROWS = 10_000;
const at = () => new Date().toISOString();

/** Dues as the import takes them: one contact per 10 dues, an invoice number each, due dates over a year. */
function dueRows(from: number, count: number) {
  return Array.from({ length: count }, (_, k) => {
    const i = from + k;
    const day = new Date(Date.now() + ((i % 365) - 180) * 86_400_000).toISOString().slice(0, 10);
    return {
      contact_name: `Buyer ${Math.floor(i / 10)} Stores`,
      amount_paise: 50_000 + ((i * 7919) % 5_000_000),
      due_date: day,
      invoice_number: `INV-${i}`,
    };
  });
}

/**
 * The statement: per 10 credit lines, 2 name a due's payment reference (rule 2), 3 an invoice
 * number (rule 3), 1 a payer seen before (rule 4), 4 nobody (rule 5: suggestions by amount and
 * name); one debit line in 10 besides. Amounts stay within the dues' balances.
 */
function statement(refs: string[], dues: number, payers: number, lines: number): string {
  const rows = ['Statement of account', '', 'Date,Narration,Ref No.,Withdrawal,Deposit,Balance'];
  // `lines` in the file, preamble and header included (the upload takes at most 20,000).
  const count = lines - rows.length;
  for (let i = 0; i < count; i++) {
    const date = `${String(1 + (i % 28)).padStart(2, '0')}/11/2026`;
    const rrn = String(RUN + i);
    if (i % 11 === 10) {
      rows.push(`${date},"POS ${rrn} SUPPLIES",${rrn},"1,200.00",,`);
      continue;
    }
    const kind = i % 10;
    const amount = `${100 + (i % 400)}.00`;
    let text: string;
    if (kind < 2) text = `UPI-BUYER-buyer${i}@okaxis-${rrn}-${refs[i % refs.length]}`;
    else if (kind < 5) text = `NEFT CR-HDFC0001234-SOME BUYER-INV-${(i * 37) % dues} PAYMENT`;
    else if (kind < 6) text = `UPI-PAYER-payer${i % payers}@okicici-${rrn}-NA`;
    else text = `IMPS-${rrn}-UNKNOWN PARTY ${i}-SBIN-XXXX1234`;
    rows.push(`${date},"${text}",${rrn},,"${amount}",`);
  }
  return `${rows.join('\n')}\n`;
}

async function seedBusiness(db: Db, services: ReturnType<typeof createServices>, name: string, dues: number) {
  const kept = await db.selectFrom('businesses').selectAll().where('name', '=', name).executeTakeFirst();
  if (kept) {
    const refs = await readRefs(db, kept.id);
    const payers = await db
      .selectFrom('bank_payers')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('business_id', '=', kept.id)
      .where('payer', 'like', 'upi:payer%')
      .executeTakeFirstOrThrow();
    return { business: kept, refs, payers: Number(payers.n) };
  }
  const { business } = await services.businesses.create({ name, phone: `+91 9${String(Date.now()).slice(-9)}` });
  for (let from = 0; from < dues; from += IMPORT_ROWS) {
    const result = await services.bulk.importDues(business, {
      rows: dueRows(from, Math.min(IMPORT_ROWS, dues - from)),
    });
    if (result.created !== Math.min(IMPORT_ROWS, dues - from)) throw new Error('import fell short');
  }
  const refs = await readRefs(db, business.id);
  const contacts = await db
    .selectFrom('contacts')
    .select('id')
    .where('business_id', '=', business.id)
    .limit(2_000)
    .execute();
  const payers = contacts.map((c, i) => ({
    business_id: business.id,
    payer: `upi:payer${i}@okicici`,
    contact_id: c.id,
    updated_at: at(),
  }));
  await db.transaction().execute((trx) => insertRows(trx, 'bank_payers', payers));
  return { business, refs, payers: payers.length };
}

async function readRefs(db: Db, businessId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('transactions')
    .select('payment_reference')
    .where('business_id', '=', businessId)
    .where('open', '=', 1)
    .limit(4_000)
    .execute();
  return rows.map((r) => r.payment_reference as string);
}

/** The floor: a bare node:http server reading the same body over loopback and answering 201. */
async function bareUpload(body: string): Promise<number> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(201, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const start = performance.now();
  const res = await fetch(`http://127.0.0.1:${port}/v1/bank-statements`, {
    method: 'POST',
    headers: { 'content-type': 'text/csv' },
    body,
  });
  await res.text();
  const ms = performance.now() - start;
  await new Promise((resolve) => server.close(resolve));
  return ms;
}

/** A plan line that reads a table whole, or walks the business's open dues (the dues lists' index). */
const WALKS =
  /^SCAN (transactions|contacts|bank_credits)\b|Seq Scan on (transactions|contacts|bank_credits)|transactions_business_open_due/;

/** The plan of a query: SQLite's EXPLAIN QUERY PLAN, PostgreSQL's EXPLAIN, as lines. */
async function planOf(db: Db, query: CompiledQuery): Promise<string[]> {
  const explain = DATABASE_URL ? 'explain ' : 'explain query plan ';
  const { rows } = await db.executeQuery({ ...query, sql: explain + query.sql });
  return rows.map((r) => Object.values(r as Record<string, unknown>).at(-1) as string);
}

async function main() {
  const dataDir = KEEP_DIR ?? mkdtempSync(path.join(os.tmpdir(), 'bench-bank-'));
  mkdirSync(dataDir, { recursive: true });
  const config = loadConfig({
    DATA_DIR: dataDir,
    DATABASE_URL,
    // A fixed key: a kept database is read again by the next run.
    ...(DATABASE_URL && { ENCRYPTION_KEY: createHash('sha256').update('bench-bank-match').digest('hex') }),
  });
  const store = openStore(config);
  const queries: CompiledQuery[] = [];
  let recording = false;
  // Every query the timed upload sends through Kysely (any executor, in a transaction or not), kept for its plan.
  const base = Object.getPrototypeOf(DefaultQueryExecutor.prototype) as {
    executeQuery(this: unknown, query: CompiledQuery, ...rest: unknown[]): Promise<unknown>;
  };
  const original = base.executeQuery;
  /** milliseconds spent per statement shape in the recorded upload (the executor's await, round trip included) */
  const spent = new Map<string, number>();
  base.executeQuery = async function (query, ...rest) {
    if (!recording) return original.call(this, query, ...rest);
    queries.push(query);
    const start = performance.now();
    try {
      return await original.call(this, query, ...rest);
    } finally {
      const key = query.sql.replace(/\s+/g, ' ').slice(0, 90);
      spent.set(key, (spent.get(key) ?? 0) + performance.now() - start);
    }
  };
  try {
    await migrate(store.db);
    const services = createServices({ store, clock: systemClock, config });
    const seeding = performance.now();
    const big = await seedBusiness(store.db, services, 'Bank Bench Big', DUES);
    const small = await seedBusiness(store.db, services, 'Bank Bench Small', 1_000);
    if (DATABASE_URL) await sql`analyze`.execute(store.db);
    const open = await store.db
      .selectFrom('transactions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('business_id', '=', big.business.id)
      .where('open', '=', 1)
      .executeTakeFirstOrThrow();
    process.stdout.write(
      `seeded ${Number(open.n)} open dues (+1,000) in ${((performance.now() - seeding) / 1000).toFixed(1)} s\n`,
    );
    if (SEED_ONLY) {
      await services.webhookSender.close();
      return;
    }

    const bigCsv = statement(big.refs, DUES, big.payers, LINES);
    const smallCsv = statement(small.refs, 1_000, small.payers, LINES);
    const timed = async (label: string, run: () => Promise<unknown>) => {
      const start = performance.now();
      const result = await run();
      const seconds = (performance.now() - start) / 1000;
      process.stdout.write(`${label}: ${seconds.toFixed(2)} s ${JSON.stringify(result)}\n`);
      return seconds;
    };
    const bare = await timed('bare node:http, same body', () => bareUpload(bigCsv));
    const smallS = await timed(`${LINES} lines, 1,000 open dues`, () => services.bank.upload(small.business, smallCsv));
    recording = true;
    const bigS = await timed(`${LINES} lines, ${Number(open.n)} open dues`, () =>
      services.bank.upload(big.business, bigCsv),
    );
    recording = false;
    process.stdout.write(
      `ratios: big/small ${(bigS / smallS).toFixed(2)}, big/bare ${(bigS / bare).toFixed(0)}; ${queries.length} statements (${(queries.length / LINES).toFixed(1)} a line)\n`,
    );

    // Where the statements went: the most frequent shapes and how many a line each.
    const counts = new Map<string, number>();
    for (const q of queries) {
      const key = q.sql.replace(/\s+/g, ' ').slice(0, 90);
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    for (const [key, n] of [...counts].sort((a, b) => b[1] - a[1]).slice(0, 12)) {
      const ms = (spent.get(key) ?? 0) / 1000;
      process.stdout.write(`  ${(n / LINES).toFixed(2)} a line, ${ms.toFixed(2)} s: ${key}\n`);
    }
    // Each distinct statement once, with the parameters it first ran with.
    const shapes = new Map<string, CompiledQuery>();
    for (const q of queries) if (/^\s*select/i.test(q.sql) && !shapes.has(q.sql)) shapes.set(q.sql, q);
    const scans: string[] = [];
    for (const q of shapes.values()) {
      const plan = await planOf(store.db, q);
      const line = `${q.sql.replace(/\s+/g, ' ').slice(0, 400)}\n    ${plan.join('\n    ')}`;
      process.stdout.write(`${line}\n`);
      // A scan, or a walk of the business's open dues (the dues lists' index) to find a few.
      if (plan.some((p) => WALKS.test(p.trim()))) scans.push(line);
    }
    if (scans.length > 0) throw new Error(`queries that scan a table:\n${scans.join('\n')}`);
    process.stdout.write(
      `${shapes.size} distinct reads, none scans transactions, contacts or bank_credits or walks the open dues\n`,
    );
    await services.webhookSender.close();
  } finally {
    await store.close();
    if (!KEEP_DIR) rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
