import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { type CompiledQuery, DefaultQueryExecutor, sql } from 'kysely';
import { loadConfig } from '../src/config.js';
import { insertRows } from '../src/db/insert-rows.js';
import type { Db } from '../src/db/schema.js';
import { migrate, openStore } from '../src/db/store.js';
import { systemClock } from '../src/lib/clock.js';
import { createServices } from '../src/services.js';
import { seedScale } from './scale-seed.js';

/**
 * A 20,000-line bank statement against a business with 100,000 open dues: the upload as the API
 * runs it (parse, record each credit once, rules 1-5, every receipt, total and event, one database
 * transaction), timed in-process, with the process's CPU; a bare node:http server receiving the
 * same body over loopback is the floor. Then the plan of every distinct query the upload ran
 * (EXPLAIN): none may scan the business's dues.
 *
 *   npx tsx bench/bank-match.ts                                  # SQLite
 *   npx tsx bench/bank-match.ts --postgres postgres://postgres@127.0.0.1:5432/throwaway
 *   npx tsx bench/bank-match.ts --dues 20000 --lines 4000        # smaller
 *   npx tsx bench/bank-match.ts --small                          # also the same lines against 1,000 dues
 *   npx tsx bench/bank-match.ts --neighbour                      # another business writing dues meanwhile
 *   npx tsx bench/bank-match.ts --seed-only                      # seed (or find) the data, upload nothing
 *
 * The dues are written in bulk by bench/scale-seed.ts (multi-row inserts; one due in 10 paid, so
 * `--dues` open dues means `--dues / 0.9` dues) into bench/.data/scale-<store>-<n> (the PostgreSQL
 * database given is emptied first) and reused while the size matches; the references and payers
 * the statement names are added once. Each run's lines carry new transaction references, so no
 * line is a duplicate of an earlier run's.
 */
const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const DUES = Number(arg('--dues') ?? 100_000);
/** dues seeded: one in 10 is paid */
const SEEDED = Math.ceil(DUES / 0.9);
const LINES = Number(arg('--lines') ?? 20_000);
const DATABASE_URL = arg('--postgres') ?? '';
const SEED_ONLY = process.argv.includes('--seed-only');
const SMALL = process.argv.includes('--small');
const NEIGHBOUR = process.argv.includes('--neighbour');
/** open dues given a payment reference (rule 2), and contacts remembered as payers (rule 4) */
const REFS = 4_000;
const PAYERS = 2_000;
/** This run's transaction references start here, so a rerun against kept data is new lines. */
const RUN = 600_000_000_000 + (Math.floor(Date.now() / 1000) % 290_000) * 100_000;
const at = () => new Date().toISOString();

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

/**
 * The bank's part of a seeded business, written once: payment references on `REFS` of its open dues
 * (what rule 2 finds) and `PAYERS` remembered payers (rule 4), as multi-row writes.
 */
async function prepareBusiness(db: Db, name: string) {
  const business = await db.selectFrom('businesses').selectAll().where('name', '=', name).executeTakeFirstOrThrow();
  const payers = await db
    .selectFrom('bank_payers')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('business_id', '=', business.id)
    .where('payer', 'like', 'upi:payer%')
    .executeTakeFirstOrThrow();
  if (Number(payers.n) === 0) {
    await db.transaction().execute(async (trx) => {
      const open = await trx
        .selectFrom('transactions')
        .select('id')
        .where('business_id', '=', business.id)
        .where('open', '=', 1)
        .where('payment_reference', 'is', null)
        .orderBy('id')
        .limit(REFS)
        .execute();
      // One UPDATE per 500 dues: each due its own reference (R + 8 characters, unique per business).
      for (let from = 0; from < open.length; from += 500) {
        const slice = open.slice(from, from + 500);
        await trx
          .updateTable('transactions')
          .set({
            payment_reference: sql<string>`case ${sql.join(
              slice.map(
                (row, k) =>
                  sql`when id = ${row.id} then ${`RB${(from + k).toString(36).toUpperCase().padStart(7, '0')}`}`,
              ),
              sql` `,
            )} end`,
          })
          .where(
            'id',
            'in',
            slice.map((r) => r.id),
          )
          .execute();
      }
      const contacts = await trx
        .selectFrom('contacts')
        .select('id')
        .where('business_id', '=', business.id)
        .orderBy('id')
        .limit(PAYERS)
        .execute();
      await insertRows(
        trx,
        'bank_payers',
        contacts.map((c, i) => ({
          business_id: business.id,
          payer: `upi:payer${i}@okicici`,
          contact_id: c.id,
          updated_at: at(),
        })),
      );
    });
  }
  const refs = await readRefs(db, business.id);
  return { business, refs, payers: Math.min(PAYERS, Number(payers.n) || PAYERS) };
}

async function readRefs(db: Db, businessId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('transactions')
    .select('payment_reference')
    .where('business_id', '=', businessId)
    .where('payment_reference', 'like', 'RB%')
    .limit(REFS)
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

/**
 * A plan line that reads a table whole, walks the business's open dues (the dues lists' index), or
 * finds rows of transactions or contacts by the business alone (SQLite: an index searched on
 * business_id only).
 */
const WALKS =
  /^SCAN (transactions|contacts|bank_credits)\b|Seq Scan on (transactions|contacts|bank_credits)|transactions_business_open_due|SEARCH (transactions|contacts) USING (COVERING )?INDEX \w+ \(business_id=\?\)$/;

/** The plan of a query: SQLite's EXPLAIN QUERY PLAN, PostgreSQL's EXPLAIN, as lines. */
async function planOf(db: Db, query: CompiledQuery): Promise<string[]> {
  const explain = DATABASE_URL ? 'explain ' : 'explain query plan ';
  const { rows } = await db.executeQuery({ ...query, sql: explain + query.sql });
  return rows.map((r) => Object.values(r as Record<string, unknown>).at(-1) as string);
}

async function main() {
  const seeding = performance.now();
  // The dues written in bulk as bench/scale-seed.ts writes them (one in 10 paid), reused while the
  // size matches: SEEDED dues leave DUES open.
  const { dataDir } = await seedScale({ dues: SEEDED, databaseUrl: DATABASE_URL || undefined });
  const config = loadConfig({
    DATA_DIR: dataDir,
    ...(DATABASE_URL && { DATABASE_URL, ENCRYPTION_KEY: '0'.repeat(64) }),
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
    const big = await prepareBusiness(store.db, 'Scale Traders');
    const small = await prepareBusiness(store.db, 'Small Scale Traders');
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
    const timed = async (label: string, run: () => Promise<unknown>) => {
      const cpu = process.cpuUsage();
      const start = performance.now();
      const result = await run();
      const seconds = (performance.now() - start) / 1000;
      const used = process.cpuUsage(cpu);
      const cpuS = (used.user + used.system) / 1e6;
      process.stdout.write(
        `${label}: ${seconds.toFixed(2)} s, ${(LINES / seconds).toFixed(0)} lines/s, this process's CPU ${cpuS.toFixed(2)} s ${JSON.stringify(result)}\n`,
      );
      return seconds;
    };
    const bare = await timed('bare node:http, same body', () => bareUpload(bigCsv));
    let smallS: number | undefined;
    if (SMALL) {
      const smallCsv = statement(small.refs, 1_000, small.payers, LINES);
      smallS = await timed(`${LINES} lines, 1,000 open dues`, () => services.bank.upload(small.business, smallCsv));
    }
    // Another business writing one due at a time meanwhile (--neighbour): how long its writes wait.
    let writing = NEIGHBOUR;
    const waits: number[] = [];
    const neighbour = (async () => {
      for (let i = 0; writing; i++) {
        const start = performance.now();
        await services.transactions.create(small.business, {
          contact_name: `Neighbour ${i % 50}`,
          amount_paise: 10_000,
          due_date: '2030-01-01',
        } as never);
        waits.push(performance.now() - start);
      }
    })();
    recording = true;
    const bigS = await timed(`${LINES} lines, ${Number(open.n)} open dues`, () =>
      services.bank.upload(big.business, bigCsv),
    );
    recording = false;
    writing = false;
    await neighbour;
    if (NEIGHBOUR) {
      const sorted = [...waits].sort((a, b) => a - b);
      const at = (q: number) => (sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0).toFixed(0);
      process.stdout.write(
        `another business's dues written one at a time meanwhile: ${waits.length}, median ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${at(1)} ms\n`,
      );
    }
    process.stdout.write(
      `ratios: ${smallS === undefined ? '' : `big/small ${(bigS / smallS).toFixed(2)}, `}big/bare ${(bigS / bare).toFixed(0)}; ${queries.length} statements (${(queries.length / LINES).toFixed(1)} a line); load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}\n`,
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
    for (const q of queries) if (/^\s*(select|update|delete)/i.test(q.sql) && !shapes.has(q.sql)) shapes.set(q.sql, q);
    const scans: string[] = [];
    for (const q of shapes.values()) {
      const plan = await planOf(store.db, q);
      const line = `${q.sql.replace(/\s+/g, ' ').slice(0, 400)}\n    ${plan.join('\n    ')}`;
      if (process.argv.includes('--plans')) process.stdout.write(`${line}\n`);
      // A scan, or a walk of the business's open dues (the dues lists' index) to find a few.
      if (plan.some((p) => WALKS.test(p.trim()))) scans.push(line);
    }
    if (scans.length > 0) throw new Error(`queries that scan a table:\n${scans.join('\n')}`);
    process.stdout.write(
      `${shapes.size} distinct reads and updates, none scans transactions, contacts or bank_credits or walks the business's dues\n`,
    );
    await services.webhookSender.close();
  } finally {
    await store.close();
  }
}

await main();
