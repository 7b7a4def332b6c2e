import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { type CompiledQuery, DefaultQueryExecutor } from 'kysely';
import { Agent, request } from 'undici';
import { buildApp } from '../src/app.js';
import { bootstrap } from '../src/bootstrap.js';
import { createLoginLink } from '../src/dashboard/auth.js';
import { SESSION_COOKIE } from '../src/dashboard/http.js';
import type { Db } from '../src/db/schema.js';
import { freePort, start, stop } from './lib.js';
import { benchDatabaseUrl, startApi } from './scale.js';
import { seedScale } from './scale-seed.js';

/**
 * The owner's Home and a buyer's page at size (each should cost a page, at 100,000 contacts / 1M
 * dues as at 50 / 1,000), on SQLite or PostgreSQL:
 *
 *   npx tsx bench/pages-scale.ts [--dues N] [--store sqlite|postgres] [--rounds N]
 *
 * The data is the `scale` group's (bench/scale-seed.ts): a business with N dues (default
 * 1,000,000) over N/10 contacts, one buyer of which holds about 1% of them (the biggest buyer),
 * and a small business with 1,000 dues over 50 buyers, shaped alike. Pages, read from the store
 * (RESPONSE_CACHE_MB=0), signed in as each business's owner:
 *
 * - Home (`/dashboard`): the total to collect, the buyers who owe most, the latest overdue dues;
 * - a small buyer's page (`/dashboard/contacts/{id}`: the ledger's newest entries with their
 *   running balance, whatever their dates, the buyer's standing, the forms);
 * - the biggest buyer's page, against the small business's biggest buyer and against a buyer of
 *   the small business whose page is as full (50 entries).
 *
 * First, every distinct read those pages run is captured in-process (the same app, read threads
 * off) and EXPLAINed: the plans are printed and the run fails on a scan of the dues, contacts,
 * receipts or payments. Then the real server (`src/server.ts`) and a bare node:http server
 * answering the same bytes (bench/bare-server.ts) are timed one request at a time, alternating
 * round by round (median of each round, the median round reported). O(page) means the big
 * business's figure is about the small one's: the big/small ratios are the result.
 */

function arg(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

const dues = Number(arg('--dues') ?? 1_000_000);
const rounds = Number(arg('--rounds') ?? 5);
const PER_ROUND = 20;
const store = arg('--store') === 'postgres' ? 'postgres' : 'sqlite';
const databaseUrl = store === 'postgres' ? await benchDatabaseUrl() : undefined;
process.stderr.write(`pages: ${dues} dues on ${store} (seeded, or reused)\n`);
const { dataDir, data } = await seedScale({ dues, databaseUrl });

const env = {
  DATA_DIR: dataDir,
  DATABASE_URL: databaseUrl ?? '',
  LOG_LEVEL: 'warn',
  WORKERS: 'off',
  RESPONSE_CACHE_MB: '0',
  ...(databaseUrl && { ENCRYPTION_KEY: '0'.repeat(64) }),
};

/**
 * A buyer of the small business whose page is as full as the biggest buyer's (60 dues, the 40
 * oldest settled by one receipt: 61 entries, 50 shown, 20 open), so the biggest buyer's page is also
 * set against a page of the same length. Written once through the API, found again on later runs.
 */
async function fullPageBuyer(): Promise<string> {
  const runtime = await bootstrap({ env: { ...env, READ_THREADS: '0' }, logLevel: 'warn' });
  const app = await buildApp(runtime, runtime.logger);
  const call = async (method: 'GET' | 'POST', url: string, payload?: object) => {
    const res = await app.inject({
      method,
      url,
      ...(payload && { payload }),
      headers: { 'x-api-key': data.smallApiKey },
    });
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body.slice(0, 300)}`);
    return res.json().data;
  };
  try {
    const found = (await call('GET', '/v1/contacts?search=full%20page%20buyer&limit=1')) as { id: string }[];
    if (found[0]) return found[0].id;
    const day = (d: number) => new Date(Date.now() + d * 86_400_000).toISOString().slice(0, 10);
    const rows = Array.from({ length: 60 }, (_, i) => ({
      contact_name: 'Full Page Buyer',
      amount_paise: 10_000 + i,
      due_date: day(-120 + i),
    }));
    const { ids } = (await call('POST', '/v1/transactions/import', { rows })) as { ids: string[] };
    const { contact_id } = (await call('GET', `/v1/transactions/${ids[0]}`)) as { contact_id: string };
    const settled = rows.slice(0, 40).reduce((sum, r) => sum + r.amount_paise, 0);
    await call('POST', `/v1/contacts/${contact_id}/payments`, { amount_paise: settled });
    return contact_id;
  } finally {
    await app.close();
    await runtime.close();
  }
}
const fullPage = await fullPageBuyer();

interface Page {
  name: string;
  business: 'big' | 'small';
  path: string;
}
const pages: Page[] = [
  { name: 'Home, small business', business: 'small', path: '/dashboard' },
  { name: `Home, ${dues} dues`, business: 'big', path: '/dashboard' },
  {
    name: 'small buyer, small business',
    business: 'small',
    path: `/dashboard/contacts/${data.smallContactIds[0] as string}`,
  },
  { name: `small buyer, ${dues} dues`, business: 'big', path: `/dashboard/contacts/${data.contactIds[0] as string}` },
  {
    name: 'biggest buyer, small business',
    business: 'small',
    path: `/dashboard/contacts/${data.smallBigBuyerId}`,
  },
  { name: `biggest buyer, ${dues} dues`, business: 'big', path: `/dashboard/contacts/${data.bigBuyerId}` },
  { name: 'full page (50 entries), small business', business: 'small', path: `/dashboard/contacts/${fullPage}` },
  { name: `biggest buyer (50 entries), ${dues} dues`, business: 'big', path: `/dashboard/contacts/${data.bigBuyerId}` },
];

/** The tables the seed fills at size: a plan may not read one of them whole. */
const BIG = new Set(['transactions', 'contacts', 'receipts', 'payments', 'contact_name_terms', 'contact_scores']);

/**
 * The big tables a plan reads whole: SQLite's `SCAN t`, PostgreSQL's `Seq Scan on t` (PostgreSQL
 * rightly scans the tables the seed leaves empty or nearly: sessions, claims, replies).
 */
function scannedTables(plan: string[]): string[] {
  return plan.flatMap((p) => {
    const m = /^SCAN (\S+)|Seq Scan on (\S+)/.exec(p.trim());
    const table = m?.[1] ?? m?.[2];
    return table && BIG.has(table) ? [table] : [];
  });
}

/** The plan of a query: SQLite's EXPLAIN QUERY PLAN, PostgreSQL's EXPLAIN, as lines. */
async function planOf(db: Db, query: CompiledQuery): Promise<string[]> {
  const explain = databaseUrl ? 'explain ' : 'explain query plan ';
  const { rows } = await db.executeQuery({ ...query, sql: explain + query.sql });
  return rows.map((r) => Object.values(r as Record<string, unknown>).at(-1) as string);
}

/**
 * Every distinct read the big business's pages run, with its plan; and a sign-in link for each
 * business, for the timed server.
 */
async function plans(): Promise<{ links: Record<'big' | 'small', string>; scans: string[] }> {
  const runtime = await bootstrap({ env: { ...env, READ_THREADS: '0' }, logLevel: 'warn' });
  const app = await buildApp(runtime, runtime.logger);
  const queries: CompiledQuery[] = [];
  let recording = false;
  const base = Object.getPrototypeOf(DefaultQueryExecutor.prototype) as {
    executeQuery(this: unknown, query: CompiledQuery, ...rest: unknown[]): Promise<unknown>;
  };
  const original = base.executeQuery;
  base.executeQuery = function (query, ...rest) {
    if (recording) queries.push(query);
    return original.call(this, query, ...rest);
  };
  const deps = { db: runtime.store.db, clock: runtime.clock, publicBaseUrl: 'http://127.0.0.1' };
  try {
    const cookieOf = async (businessId: string) => {
      const link = new URL(await createLoginLink(deps, businessId));
      const res = await app.inject({ method: 'GET', url: link.pathname });
      const cookie = res.cookies.find((c) => c.name === SESSION_COOKIE);
      if (!cookie) throw new Error(`no session from ${link.pathname}: ${res.statusCode}`);
      return `${cookie.name}=${cookie.value}`;
    };
    const cookie = await cookieOf(data.businessId);
    // Once unrecorded (statements prepared, caches filled), then recorded.
    for (const record of [false, true]) {
      recording = record;
      for (const page of pages.filter((p) => p.business === 'big')) {
        const res = await app.inject({ method: 'GET', url: page.path, headers: { cookie } });
        if (res.statusCode !== 200) throw new Error(`${page.path}: ${res.statusCode} ${res.body.slice(0, 300)}`);
      }
    }
    recording = false;
    const shapes = new Map<string, CompiledQuery>();
    for (const q of queries) if (/^\s*(with|select)/i.test(q.sql) && !shapes.has(q.sql)) shapes.set(q.sql, q);
    const scans: string[] = [];
    for (const q of shapes.values()) {
      const plan = await planOf(runtime.store.db, q);
      const line = `${q.sql.replace(/\s+/g, ' ').slice(0, 300)}\n    ${plan.join('\n    ')}`;
      console.log(line);
      if (scannedTables(plan).length > 0) scans.push(line);
    }
    console.log(`${shapes.size} distinct reads (${queries.length} statements) on the big business's pages`);
    const links = {
      big: new URL(await createLoginLink(deps, data.businessId)).pathname,
      small: new URL(await createLoginLink(deps, data.smallBusinessId)).pathname,
    };
    return { links, scans };
  } finally {
    base.executeQuery = original;
    await app.close();
    await runtime.close();
  }
}

const { links, scans } = await plans();
const { server, base: api } = await startApi(dataDir, databaseUrl);
const agent = new Agent({ connections: 2 });
async function get(base: string, p: string, cookie = '') {
  const t = performance.now();
  const res = await request(`${base}${p}`, { dispatcher: agent, headers: { cookie } });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`GET ${p}: ${res.statusCode} ${text.slice(0, 300)}`);
  return { ms: performance.now() - t, text };
}

/** Signs in through the one-time link: the session cookie. */
async function signIn(link: string): Promise<string> {
  const res = await request(`${api}${link}`, { dispatcher: agent });
  await res.body.dump();
  const set = [res.headers['set-cookie'] ?? []].flat().find((c) => c.startsWith(`${SESSION_COOKIE}=`));
  if (!set) throw new Error(`no session cookie from the sign-in link (${res.statusCode})`);
  return set.split(';')[0] as string;
}

const cookies = { big: await signIn(links.big), small: await signIn(links.small) };
const bodies: Record<string, string> = {};
for (const [i, page] of pages.entries()) {
  bodies[`GET /bare/${i}/`] = (await get(api, page.path, cookies[page.business])).text;
}
const bodiesFile = path.join(dataDir, 'pages-bare.json');
writeFileSync(bodiesFile, JSON.stringify(bodies));
const barePort = await freePort();
const bare = await start('bench/bare-server.ts', [bodiesFile], { PORT: String(barePort) }, 'bare ready');
const bareBase = `http://127.0.0.1:${barePort}`;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const figures = pages.map(() => ({ api: [] as number[], bare: [] as number[] }));
try {
  for (const [i, page] of pages.entries()) {
    for (let k = 0; k < 5; k++) {
      await get(api, page.path, cookies[page.business]);
      await get(bareBase, `/bare/${i}/`);
    }
  }
  for (let round = 0; round < rounds; round++) {
    for (const [i, page] of pages.entries()) {
      const f = figures[i] as { api: number[]; bare: number[] };
      const times = { api: [] as number[], bare: [] as number[] };
      for (const side of round % 2 === 0 ? (['api', 'bare'] as const) : (['bare', 'api'] as const)) {
        for (let k = 0; k < PER_ROUND; k++) {
          const t =
            side === 'api' ? await get(api, page.path, cookies[page.business]) : await get(bareBase, `/bare/${i}/`);
          times[side].push(t.ms);
        }
      }
      f.api.push(median(times.api));
      f.bare.push(median(times.bare));
    }
  }
  const row = (i: number) => {
    const f = figures[i] as { api: number[]; bare: number[] };
    return { ms: median(f.api), bareMs: median(f.bare), rounds: f.api.map((ms) => ms.toFixed(1)).join(' ') };
  };
  console.log(`pages, ${store}, ${dues} dues / ${dues / 10} contacts against 1,000 dues / 50 contacts`);
  for (const [i, page] of pages.entries()) {
    const r = row(i);
    const kb = ((bodies[`GET /bare/${i}/`] as string).length / 1024).toFixed(1);
    console.log(
      `${page.name.padEnd(42)} API p50 ${r.ms.toFixed(2)} ms (rounds ${r.rounds}), bare ${r.bareMs.toFixed(2)} ms: ${(r.bareMs / r.ms).toFixed(3)}x of bare; ${kb} KB`,
    );
  }
  for (let i = 0; i < pages.length; i += 2) {
    console.log(
      `${(pages[i + 1] as Page).name} / ${(pages[i] as Page).name}: ${(row(i + 1).ms / row(i).ms).toFixed(2)}x`,
    );
  }
  if (scans.length > 0) {
    console.log(`reads that scan a table:\n${scans.join('\n')}`);
    process.exitCode = 1;
  }
} finally {
  await agent.close();
  await stop(bare);
  await stop(server);
}
