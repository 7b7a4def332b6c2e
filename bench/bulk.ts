import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { Agent, request } from 'undici';
import { loadConfig } from '../src/config.js';
import { migrate, openStore } from '../src/db/store.js';
import { systemClock } from '../src/lib/clock.js';
import { createServices } from '../src/services.js';
import { cpuSeconds, freePort, importRow, start, stop } from './lib.js';

/**
 * `npm run bench:bulk` (issue 21), on the real server (src/server.ts):
 * 1. import: 10,000 dues in one POST /v1/transactions/import against 10,000 single
 *    POST /v1/transactions (10 concurrent) into another business of the same server, in the same run;
 * 2. export: GET /v1/transactions/export of a business with `--export-rows` dues (default
 *    1,000,000; seeded in-process through the import service, 10,000 per import), rows per second
 *    and the server's RSS growth (VmRSS from /proc, sampled every 50 ms) while it streams.
 * `--postgres URL` runs it on PostgreSQL (a throw-away database is best); `--quick` is a small run;
 * `--data DIR` keeps the seeded export business in DIR for the next runs (SQLite).
 */
const quick = process.argv.includes('--quick');
const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const IMPORT_ROWS = Number(arg('--import-rows') ?? (quick ? 2_000 : 10_000));
const EXPORT_ROWS = Number(arg('--export-rows') ?? (quick ? 50_000 : 1_000_000));
const DATABASE_URL = arg('--postgres') ?? '';
const CONCURRENCY = 10;

const today = new Date().toISOString().slice(0, 10);
const row = importRow;

/**
 * The server's resident memory in MB: VmRSS, and RssAnon, its anonymous part. VmRSS also counts
 * the pages of files the process maps: the SQLite read threads map the database file (mmap_size),
 * so a read of a million dues makes VmRSS grow by the file's pages read, which are the OS's page
 * cache (shared, dropped under pressure), not memory the export holds; RssAnon is the heap, stacks
 * and SQLite's own page caches.
 */
function rssMb(pid: number, field: 'VmRSS' | 'RssAnon' = 'VmRSS'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024;
}

async function main() {
  // `--data DIR` (SQLite): the export's business is seeded there once and kept (DIR/export-business.json),
  // so that later runs skip the seeding; the import's businesses are new each run.
  const keptDir = arg('--data');
  const dataDir = keptDir ?? mkdtempSync(path.join(os.tmpdir(), 'bench-bulk-'));
  if (keptDir) mkdirSync(keptDir, { recursive: true });
  const seededFile = path.join(dataDir, 'export-business.json');
  // PostgreSQL needs an ENCRYPTION_KEY (webhook secrets): one made for the run, the same for the server.
  const env = {
    DATA_DIR: dataDir,
    DATABASE_URL,
    ...(DATABASE_URL && { ENCRYPTION_KEY: randomBytes(32).toString('hex') }),
  };
  const config = loadConfig(env);
  const store = openStore(config);
  await migrate(store.db);
  const services = createServices({ store, clock: systemClock, config });
  const single = await services.businesses.create({ name: 'Bulk Single', phone: '+91 90000 00021' });
  const bulk = await services.businesses.create({ name: 'Bulk Import', phone: '+91 90000 00022' });
  // Both paths warmed on a business of their own before either is timed, as `npm run bench` warms
  // its scenarios: the 10,000 single POSTs spread their first, unoptimised requests over the run,
  // while one import would pay them all (the first import in a process ran 20-40% slower).
  const warmUp = await services.businesses.create({ name: 'Bulk Warm-up', phone: '+91 90000 00024' });
  const seeded =
    keptDir && existsSync(seededFile)
      ? (JSON.parse(readFileSync(seededFile, 'utf8')) as { apiKey: string; rows: number })
      : undefined;
  if (seeded && seeded.rows !== EXPORT_ROWS) throw new Error(`${keptDir} holds ${seeded.rows} export rows`);
  const big = seeded ?? (await services.businesses.create({ name: 'Bulk Export', phone: '+91 90000 00023' }));
  const seedStart = performance.now();
  if (!seeded) {
    process.stderr.write(`seeding ${EXPORT_ROWS} dues for the export (through the import service)\n`);
    const { business } = big as Awaited<ReturnType<typeof services.businesses.create>>;
    for (let done = 0; done < EXPORT_ROWS; done += 10_000) {
      const rows = Array.from({ length: Math.min(10_000, EXPORT_ROWS - done) }, (_, i) => row(done + i, 'SEED'));
      await services.bulk.importDues(business, { rows });
    }
    if (keptDir) writeFileSync(seededFile, JSON.stringify({ apiKey: big.apiKey, rows: EXPORT_ROWS }));
  }
  const seedSeconds = (performance.now() - seedStart) / 1000;
  // PostgreSQL plans from statistics: right after a bulk load they say the table is empty (a plan
  // that sorts every row per batch) until autovacuum analyzes it; a deployment has them, so do it now.
  if (DATABASE_URL) await sql`analyze`.execute(store.db);
  await store.close();

  const port = await freePort();
  const api = await start(
    'src/server.ts',
    [],
    {
      ...env,
      PORT: String(port),
      RATE_LIMIT_PER_MINUTE: '100000000',
      LOG_LEVEL: 'warn',
      LOG_REQUESTS: 'false',
      WORKERS: 'off',
    },
    '',
  );
  const base = `http://127.0.0.1:${port}`;
  const agent = new Agent({ connections: CONCURRENCY });
  try {
    for (let i = 0; ; i++) {
      try {
        if ((await fetch(`${base}/healthz`)).ok) break;
      } catch {}
      if (i > 300) throw new Error('the API did not become healthy');
      await new Promise((r) => setTimeout(r, 100));
    }
    const post = async (apiKey: string, p: string, body: unknown) => {
      const res = await request(`${base}${p}`, {
        dispatcher: agent,
        method: 'POST',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const text = await res.body.text();
      if (res.statusCode !== 201) throw new Error(`${p}: ${res.statusCode} ${text.slice(0, 500)}`);
    };

    // 1. import: single POSTs, then one import, same server, same row shapes; each warmed first.
    if (!process.argv.includes('--export-only')) {
      for (let i = 0; i < 200; i++) await post(warmUp.apiKey, '/v1/transactions', row(i, 'WARM-ONE'));
      const warmRows = Array.from({ length: 1_000 }, (_, i) => row(i, 'WARM-IMP'));
      await post(warmUp.apiKey, '/v1/transactions/import', { rows: warmRows });
    }
    let next = process.argv.includes('--export-only') ? IMPORT_ROWS : 0;
    const singleStart = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < IMPORT_ROWS) await post(single.apiKey, '/v1/transactions', row(next++, 'ONE'));
      }),
    );
    const singleSeconds = (performance.now() - singleStart) / 1000;
    const rows = Array.from({ length: IMPORT_ROWS }, (_, i) => row(i, 'IMP'));
    const importStart = performance.now();
    if (!process.argv.includes('--export-only')) await post(bulk.apiKey, '/v1/transactions/import', { rows });
    const importSeconds = (performance.now() - importStart) / 1000;

    // 2. export: stream it, count the lines, watch the server's memory. Twice: the first run
    // also fills the store's own page cache (SQLite cache_size is 64 MB), the second shows what
    // the export itself holds.
    const exportOnce = async () => {
      const rssBefore = rssMb(api.pid as number);
      const anonBefore = rssMb(api.pid as number, 'RssAnon');
      let anonMax = anonBefore;
      let rssMax = rssBefore;
      const sampler = setInterval(() => {
        rssMax = Math.max(rssMax, rssMb(api.pid as number));
        anonMax = Math.max(anonMax, rssMb(api.pid as number, 'RssAnon'));
      }, 50);
      const cpuBefore = cpuSeconds(api.pid as number);
      const exportStart = performance.now();
      const res = await request(`${base}/v1/transactions/export`, {
        dispatcher: agent,
        headers: { 'x-api-key': big.apiKey },
      });
      let lines = 0;
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
      }
      const seconds = (performance.now() - exportStart) / 1000;
      const cpu = cpuSeconds(api.pid as number) - cpuBefore;
      clearInterval(sampler);
      if (res.statusCode !== 200) throw new Error(`export: ${res.statusCode}`);
      return {
        rows: lines - 1,
        rows_per_s: Math.round((lines - 1) / seconds),
        server_cpu_us_per_row: Number(((cpu * 1e6) / Math.max(1, lines - 1)).toFixed(1)),
        rss_before_mb: Math.round(rssBefore),
        rss_growth_mb: Math.round(rssMax - rssBefore),
        rss_anon_growth_mb: Math.round(anonMax - anonBefore),
      };
    };
    const cold = await exportOnce();
    const warm = await exportOnce();

    const result = {
      store: DATABASE_URL ? 'postgres' : 'sqlite',
      date: today,
      import: {
        rows: IMPORT_ROWS,
        single_posts_per_s: Math.round(IMPORT_ROWS / singleSeconds),
        import_dues_per_s: Math.round(IMPORT_ROWS / importSeconds),
        ratio: Number((singleSeconds / importSeconds).toFixed(1)),
      },
      export_cold: cold,
      export_warm: warm,
      ...(!seeded && { seed_dues_per_s_in_process: Math.round(EXPORT_ROWS / seedSeconds) }),
    };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } finally {
    await agent.close();
    await stop(api);
    if (!keptDir) rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
