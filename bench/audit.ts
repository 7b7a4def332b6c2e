import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  CompiledQuery,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  sql,
  type UnknownRow,
} from 'kysely';
import pg from 'pg';
import { listAuditEntries } from '../src/audit/read.js';
import { loadConfig } from '../src/config.js';
import type { Db } from '../src/db/schema.js';
import { migrate, openStore } from '../src/db/store.js';
import { systemClock } from '../src/lib/clock.js';
import { createServices } from '../src/services.js';

/**
 * The audit log's cost (PRODUCT part 23: an entry per change must not slow writes by more than
 * ~15%; the log reads by index at any size), in-process on a throw-away store of either kind.
 *
 *   write --store sqlite|postgres --path create|receipt [--ops 1000] [--concurrency 10]
 *     N creates of a due for a known buyer, or N receipts of a buyer paying their oldest due,
 *     after 100 of warm-up; prints one JSON line: CPU µs and wall µs per operation, ops/s.
 *     bench/audit-write.sh runs it from this checkout and from a copy whose audit writer writes
 *     nothing, in alternated rounds, and prints the ratios.
 *   read --store sqlite|postgres [--small 10000] [--large 1000000]
 *     Two businesses in one database, with `small` and `large` audit entries; for each of
 *     GET /v1/audit-log's reads (newest page, a page deep behind a cursor, by entity, by entity
 *     and id, since) the plan of its statements and its median time, per business.
 */
const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const MODE = process.argv[2];
const STORE = arg('--store') ?? 'sqlite';
const SERVER = arg('--postgres') ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function withStore<T>(work: (services: ReturnType<typeof createServices>, db: Db) => Promise<T>): Promise<T> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-audit-'));
  const name = `bench_audit_${process.pid}_${randomBytes(3).toString('hex')}`;
  let admin: pg.Client | undefined;
  let databaseUrl: string | undefined;
  if (STORE === 'postgres') {
    admin = new pg.Client({ connectionString: SERVER });
    await admin.connect();
    await admin.query(`create database ${name}`);
    const url = new URL(SERVER);
    url.pathname = `/${name}`;
    databaseUrl = url.toString();
  }
  const config = loadConfig({
    DATA_DIR: dataDir,
    ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    // seeding a million entries is one statement: longer than a request's 30 s bound under load
    PG_STATEMENT_TIMEOUT_MS: '600000',
    ...(databaseUrl && { DATABASE_URL: databaseUrl }),
  });
  const store = openStore(config);
  try {
    await migrate(store.db);
    return await work(createServices({ store, clock: systemClock, config }), store.db);
  } finally {
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
    if (admin) {
      await admin.query(`drop database ${name} with (force)`);
      await admin.end();
    }
  }
}

async function write() {
  const ops = Number(arg('--ops') ?? 1000);
  const concurrency = Number(arg('--concurrency') ?? 10);
  const kind = arg('--path') ?? 'create';
  const warmup = 100;
  const result = await withStore(async (services, db) => {
    const { business } = await services.businesses.create({ name: 'Audit Bench', phone: '+91 90000 00023' });
    // one buyer per worker: a receipt locks its buyer, and workers on one buyer would wait on each other
    const buyers: string[] = [];
    for (let w = 0; w < concurrency; w++) {
      const created = (await services.contacts.create(business, { name: `Known Buyer ${w}` })) as {
        contact: { id: string };
      };
      buyers.push(created.contact.id);
    }
    const createDue = (w: number) =>
      services.transactions.create(business, {
        contact_id: buyers[w],
        amount_paise: 150_000,
        due_date: '2030-01-01',
      } as never);
    const receipt = (w: number) =>
      services.receipts.record(
        business,
        buyers[w] as string,
        { amountPaise: 150_000, paymentMethod: 'upi', source: 'api' },
        { idempotencyKey: undefined, respond: () => ({ status: 201, body: null }) } as never,
      );
    const op = kind === 'receipt' ? receipt : createDue;
    /** `n` operations, worker w doing every concurrency-th one on buyer w. */
    const run = async (n: number, work: (w: number) => Promise<unknown>) => {
      await Promise.all(
        Array.from({ length: concurrency }, async (_, w) => {
          for (let i = w; i < n; i += concurrency) await work(w);
        }),
      );
    };
    // a receipt pays its buyer's oldest open due: as many dues as receipts, written untimed
    if (kind === 'receipt') await run(ops + warmup, createDue);
    await run(warmup, op);
    const cpu = process.cpuUsage();
    const start = performance.now();
    await run(ops, op);
    const wallUs = (performance.now() - start) * 1000;
    const used = process.cpuUsage(cpu);
    // what the run wrote to the log: "before" (audit-write.sh's copy) writes none
    const audited = await db
      .selectFrom('audit_log')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('business_id', '=', business.id)
      .executeTakeFirstOrThrow();
    return {
      store: STORE,
      path: kind,
      ops,
      cpuUsPerOp: Math.round((used.user + used.system) / ops),
      wallUsPerOp: Math.round(wallUs / ops),
      opsPerSecond: Math.round((ops * 1e6) / wallUs),
      auditEntries: Number(audited.n),
    };
  });
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

/** `count` entries of a business, time-ordered ids a millisecond apart, about 1,000 entities of three kinds. */
async function seedEntries(db: Db, businessId: string, count: number, baseMs: number, salt: number) {
  if (STORE === 'postgres') {
    await sql`insert into audit_log (id, business_id, at, actor_type, actor_id, actor_name, action, entity, entity_id, changes, request_id)
      select (lpad(to_hex(${baseMs}::bigint + g), 12, '0') || '7000' || '8000' || lpad(to_hex(${salt}::bigint + g), 12, '0'))::uuid,
        ${businessId}::uuid, to_timestamp((${baseMs}::bigint + g) / 1000.0), 'api_key', null, 'rk_live_abcd',
        (array['transaction.created','contact.updated','receipt.recorded'])[g % 3 + 1],
        (array['transaction','contact','receipt'])[g % 3 + 1], 'e' || (g % 1000),
        '{"amount_paise":[null,150000]}', null
      from generate_series(1, ${count}::int) g`.execute(db);
    await sql`analyze audit_log`.execute(db);
    return;
  }
  await sql`with recursive s(g) as (select 1 union all select g + 1 from s where g < ${count})
    insert into audit_log (id, business_id, at, actor_type, actor_id, actor_name, action, entity, entity_id, changes, request_id)
    select substr(printf('%012x', ${baseMs} + g), 1, 8) || '-' || substr(printf('%012x', ${baseMs} + g), 9, 4)
        || '-7000-8000-' || printf('%012x', ${salt} + g),
      ${businessId}, strftime('%Y-%m-%dT%H:%M:%fZ', (${baseMs} + g) / 1000.0, 'unixepoch'), 'api_key', null, 'rk_live_abcd',
      case g % 3 when 0 then 'transaction.created' when 1 then 'contact.updated' else 'receipt.recorded' end,
      case g % 3 when 0 then 'transaction' when 1 then 'contact' else 'receipt' end, 'e' || (g % 1000),
      '{"amount_paise":[null,150000]}', null
    from s`.execute(db);
  await sql`analyze`.execute(db);
}

/** Records each statement a read runs, to show its plan. */
class Recorder implements KyselyPlugin {
  nodes: RootOperationNode[] = [];
  transformQuery({ node }: PluginTransformQueryArgs): RootOperationNode {
    this.nodes.push(node);
    return node;
  }
  async transformResult({ result }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return result;
  }
}

async function read() {
  const small = Number(arg('--small') ?? 10_000);
  const large = Number(arg('--large') ?? 1_000_000);
  const rounds = Number(arg('--rounds') ?? 21);
  await withStore(async (services, db) => {
    const baseMs = Date.parse('2026-01-01T00:00:00.000Z');
    const sizes = [
      {
        entries: small,
        business: (await services.businesses.create({ name: 'Small Log', phone: '+91 90000 00024' })).business,
      },
      {
        entries: large,
        business: (await services.businesses.create({ name: 'Large Log', phone: '+91 90000 00025' })).business,
      },
    ];
    const seedStart = performance.now();
    for (const [i, s] of sizes.entries()) await seedEntries(db, s.business.id, s.entries, baseMs, i * 1e10);
    process.stdout.write(`seeded ${small + large} entries in ${Math.round(performance.now() - seedStart)} ms\n`);
    const recorder = new Recorder();
    const traced = db.withPlugin(recorder);
    for (const s of sizes) {
      const idAt = async (fraction: number) =>
        (
          await db
            .selectFrom('audit_log')
            .select('id')
            .where('business_id', '=', s.business.id)
            .orderBy('id')
            .offset(Math.floor(s.entries * fraction))
            .limit(1)
            .executeTakeFirstOrThrow()
        ).id;
      const middle = await idAt(0.5);
      const reads: Record<string, Parameters<typeof listAuditEntries>[2]> = {
        newest: { limit: 51 },
        'deep cursor (middle)': { startingAfter: middle, limit: 51 },
        'entity=contact': { entity: 'contact', limit: 51 },
        'entity=api_key (none seeded)': { entity: 'api_key', limit: 51 },
        'entity + entity_id': { entity: 'contact', entityId: 'e1', limit: 51 },
        'since (the middle), oldest kept': {
          since: new Date(baseMs + Math.floor(s.entries / 2)).toISOString(),
          limit: 51,
        },
      };
      for (const [name, filter] of Object.entries(reads)) {
        recorder.nodes = [];
        const rows = await listAuditEntries(traced, s.business.id, filter);
        const plans: string[] = [];
        for (const node of recorder.nodes) {
          const compiled = traced.getExecutor().compileQuery(node, { queryId: 'explain' } as never);
          const explain = STORE === 'postgres' ? `explain ${compiled.sql}` : `explain query plan ${compiled.sql}`;
          const plan = await db.executeQuery(CompiledQuery.raw(explain, [...compiled.parameters]));
          plans.push(
            (plan.rows as Record<string, unknown>[])
              .map((r) => String(r['QUERY PLAN'] ?? r.detail))
              .filter((line) => !/^\s*(Buffers|Planning|-> {2}Sort Key)/.test(line))
              .join(' | '),
          );
        }
        const times: number[] = [];
        for (let i = 0; i < rounds; i++) {
          const start = performance.now();
          await listAuditEntries(db, s.business.id, filter);
          times.push(performance.now() - start);
        }
        times.sort((a, b) => a - b);
        process.stdout.write(
          `${JSON.stringify({ store: STORE, entries: s.entries, read: name, rows: rows.length, medianMs: Number((times[Math.floor(rounds / 2)] as number).toFixed(3)), plans })}\n`,
        );
      }
    }
  });
}

(MODE === 'read'
  ? read()
  : MODE === 'write'
    ? write()
    : Promise.reject(new Error('usage: audit.ts write|read ...'))
).catch((error) => {
  console.error(error);
  process.exit(1);
});
