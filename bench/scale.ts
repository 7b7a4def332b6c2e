import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { Agent, request } from 'undici';
import { freePort, start, stop } from './lib.js';
import { seedScale } from './scale-seed.js';

/**
 * The `scale` group (issue 18): `npm run bench -- --group scale [--dues N] [--store postgres]
 * [--fresh]`. A business with N dues (default 1,000,000) and N/10 contacts, and a small one with
 * 1,000, on SQLite (default) or PostgreSQL (BENCH_DATABASE_URL, default a database
 * receivables_bench_scale on 127.0.0.1). Uncached first requests, one at a time:
 *
 * - the first `since` page (200), cursor pages, offset pages near the end;
 * - a full sync of every due through cursor pages of 200 (dues/s);
 * - the noisy neighbour: while the big business runs a full sync and deep offset pages in a loop,
 *   the small one's GET one due / summary latencies (p50, p99);
 * - GET /v1/contacts/{id} and the earlier shape's fuzzy search on dues.
 */

function arg(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

const TARGETS = {
  cursorPageMs: 20,
  deepOffsetMs: 250,
  firstSinceMs: 50,
  syncDuesPerSecond: 20_000,
  neighbourP99Ms: 50,
  fuzzyDuesMs: 200,
};

/** The bench database on PostgreSQL (BENCH_DATABASE_URL, or receivables_bench_scale), made if missing. */
export async function benchDatabaseUrl(): Promise<string> {
  const url = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/receivables_bench_scale';
  const admin = new URL(url);
  const name = admin.pathname.slice(1);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (found.rowCount === 0) await client.query(`create database ${name}`);
  } finally {
    await client.end();
  }
  return url;
}

/**
 * The API on a seeded data set (no workers, no response cache), once healthy: a reused database
 * may have migrations to run first (a backfill over a million dues).
 */
export async function startApi(dataDir: string, databaseUrl: string | undefined) {
  const port = await freePort();
  const server = await start(
    'src/server.ts',
    [],
    {
      PORT: String(port),
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl ?? '',
      RATE_LIMIT_PER_MINUTE: '100000000',
      AUTH_FAILURES_PER_MINUTE: '100000000',
      LOG_LEVEL: 'warn',
      WORKERS: 'off',
      RESPONSE_CACHE_MB: '0',
      ...(databaseUrl && { ENCRYPTION_KEY: '0'.repeat(64) }),
    },
    '',
  );
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/healthz`)).ok) break;
    } catch {}
    // A reused database may have migrations to run first (a backfill over a million dues).
    if (server.exitCode !== null) throw new Error(`the API exited (${server.exitCode}) before it was healthy`);
    if (i > 6000) throw new Error('the API did not become healthy within 10 minutes');
    await new Promise((r) => setTimeout(r, 100));
  }
  return { server, base };
}

export async function runScale(): Promise<void> {
  const dues = Number(arg('--dues') ?? 1_000_000);
  const store = arg('--store') === 'postgres' ? 'postgres' : 'sqlite';
  const databaseUrl = store === 'postgres' ? await benchDatabaseUrl() : undefined;
  process.stderr.write(`scale: seeding ${dues} dues on ${store} (reused when present)\n`);
  const { dataDir, data } = await seedScale({
    dues,
    databaseUrl,
    fresh: process.argv.includes('--fresh') || store === 'postgres',
  });
  const { server, base } = await startApi(dataDir, databaseUrl);
  const agent = new Agent({ connections: 8 });
  const get = async (p: string, key = data.apiKey) => {
    const t = performance.now();
    const res = await request(`${base}${p}`, { dispatcher: agent, headers: { 'x-api-key': key } });
    const body = (await res.body.json()) as { data: { id: string }[]; total: number; hasMore: boolean };
    if (res.statusCode !== 200) throw new Error(`${p}: ${res.statusCode} ${JSON.stringify(body)}`);
    return { ms: performance.now() - t, body };
  };
  const since = encodeURIComponent('2000-01-01T00:00:00.000Z');
  const results: Record<string, number | string> = {};
  try {
    // Warm-up on the small business: statements prepared, threads started, code compiled.
    for (let i = 0; i < 20; i++) {
      await get(`/v1/transactions?since=${since}&limit=200`, data.smallApiKey);
      await get('/v1/transactions?limit=48&offset=900', data.smallApiKey);
      await get(`/v1/transactions/${data.smallDueIds[i % data.smallDueIds.length] as string}`, data.smallApiKey);
    }
    results.firstSinceMs = (await get(`/v1/transactions?since=${since}&limit=200`)).ms;
    results.deepOffsetMs = (await get(`/v1/transactions?limit=48&offset=${Math.max(0, dues - 1000)}`)).ms;
    results.offset80Ms = (await get(`/v1/transactions?limit=200&offset=${Math.floor(dues * 0.8)}`)).ms;
    const middle = await get(`/v1/transactions?limit=200&offset=${Math.floor(dues / 2)}`);
    let cursor = middle.body.data[middle.body.data.length - 1]?.id as string;
    const cursorMs: number[] = [];
    for (let i = 0; i < 50; i++) {
      const page = await get(`/v1/transactions?limit=200&starting_after=${cursor}`);
      cursorMs.push(page.ms);
      cursor = page.body.data[page.body.data.length - 1]?.id ?? cursor;
    }
    cursorMs.sort((a, b) => a - b);
    results.cursorPageP50Ms = cursorMs[25] as number;
    results.cursorPageMaxMs = cursorMs[49] as number;

    /** Every due through cursor pages of 200 (as an ERP's first incremental sync). */
    const fullSync = async (until: () => boolean = () => false) => {
      const t = performance.now();
      let seen = 0;
      let after: string | undefined;
      while (!until()) {
        const page = await get(`/v1/transactions?since=${since}&limit=200${after ? `&starting_after=${after}` : ''}`);
        seen += page.body.data.length;
        if (!page.body.hasMore) break;
        after = page.body.data[page.body.data.length - 1]?.id;
      }
      return { seen, seconds: (performance.now() - t) / 1000 };
    };
    const sync = await fullSync();
    results.syncDues = sync.seen;
    results.syncDuesPerSecond = sync.seen / sync.seconds;

    // The noisy neighbour: the big business syncs and reads deep offsets in a loop meanwhile.
    let noisy = true;
    const noise = (async () => {
      let n = 0;
      while (noisy) {
        await get(`/v1/transactions?limit=48&offset=${Math.max(0, dues - 1000 - (n % 100) * 1000)}`);
        await get(`/v1/transactions?since=${since}&limit=200&offset=${(n * 7919) % Math.max(1, dues - 200)}`);
        n++;
      }
      return n;
    })();
    const noisySync = fullSync(() => !noisy);
    const victim: number[] = [];
    for (let i = 0; i < 1000; i++) {
      const id = data.smallDueIds[i % data.smallDueIds.length] as string;
      victim.push((await get(i % 2 === 0 ? `/v1/transactions/${id}` : '/v1/summary', data.smallApiKey)).ms);
    }
    noisy = false;
    await Promise.all([noise, noisySync]);
    victim.sort((a, b) => a - b);
    results.neighbourP50Ms = victim[500] as number;
    results.neighbourP99Ms = victim[990] as number;

    const contactMs: number[] = [];
    for (const id of data.contactIds.slice(0, 200)) contactMs.push((await get(`/v1/contacts/${id}`)).ms);
    results.contactMeanMs = contactMs.reduce((s, v) => s + v, 0) / contactMs.length;
    results.fuzzyDuesMs = (await get('/legacy/v1/transactions?search=buyr%201234')).ms;
    results.contactSubstringMs = (await get('/v1/contacts?search=er%2012')).ms;
  } finally {
    await agent.close();
    await stop(server);
  }

  console.log(
    `\nscale group: ${store}, ${dues} dues / ${Math.floor(dues / 10)} contacts (uncached, one request at a time)`,
  );
  const line = (name: string, value: number | string, target?: number, lowerIsBetter = true) => {
    const v = typeof value === 'number' ? value.toFixed(1) : value;
    const verdict =
      target === undefined || typeof value !== 'number'
        ? ''
        : `  target ${lowerIsBetter ? '<=' : '>='} ${target} ${(lowerIsBetter ? value <= target : value >= target) ? 'ok' : 'MISSED'}`;
    console.log(`${name.padEnd(34)}${String(v).padStart(10)}${verdict}`);
  };
  line('first since page (200), ms', results.firstSinceMs as number, TARGETS.firstSinceMs);
  line('offset N-1000 (48), ms', results.deepOffsetMs as number, TARGETS.deepOffsetMs);
  line('offset 80% (200), ms', results.offset80Ms as number);
  line('cursor page p50 (200), ms', results.cursorPageP50Ms as number, TARGETS.cursorPageMs);
  line('cursor page max (200), ms', results.cursorPageMaxMs as number, TARGETS.cursorPageMs);
  line('full sync, dues/s', results.syncDuesPerSecond as number, TARGETS.syncDuesPerSecond, false);
  line('neighbour p50 (one due/summary), ms', results.neighbourP50Ms as number);
  line('neighbour p99 (one due/summary), ms', results.neighbourP99Ms as number, TARGETS.neighbourP99Ms);
  line('GET /v1/contacts/{id} mean, ms', results.contactMeanMs as number);
  line('legacy fuzzy search on dues, ms', results.fuzzyDuesMs as number, TARGETS.fuzzyDuesMs);
  line('contact substring search, ms', results.contactSubstringMs as number);
  const dir = path.join(import.meta.dirname, 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, `scale-${store}-${dues}.json`),
    JSON.stringify({ date: new Date().toISOString(), store, dues, results }, null, 2),
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runScale().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
