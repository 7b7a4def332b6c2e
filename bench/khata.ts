import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Agent, request } from 'undici';
import { freePort, start, stop } from './lib.js';
import { benchDatabaseUrl, startApi } from './scale.js';
import { seedScale } from './scale-seed.js';

/**
 * Buyer accounts at size: what a receipt, a contact read, a statement and the contacts list sorted
 * by balance cost, against the contact's history and the business's size, each beside a bare
 * node:http server answering the same bytes in the same run (bench/bare-server.ts).
 *
 *   npx tsx bench/khata.ts [--dues N] [--store sqlite|postgres] [--history N] [--rounds N]
 *
 * The business is the `scale` group's (bench/scale-seed.ts: N dues, default 1,000,000, over N/10
 * contacts). Two more contacts are given accounts through the API: a short one (10 dues) and a
 * long one (`--history`, default 10,000 dues), each settled by one receipt and then given 400 open
 * dues of 1,000 paise. Measured one request at a time, alternating rounds of the API and of the
 * bare server (median of each round, the median round reported):
 *
 * - a receipt of 2,000 paise on each contact: it settles the 2 oldest open dues (k = 2);
 * - GET /v1/contacts/{id} of each, and of two of the seed's buyers: an ordinary one and the biggest
 *   (about 1% of the dues, nine in ten of them open, due over 425 days);
 * - the statement of each for a day with no entries (the day after tomorrow, UTC), its history
 *   all before it, and
 *   for an old day with no entries (400 days ago), its whole history after it;
 * - GET /v1/contacts?sort=balance_desc&limit=50 of the big business and of the small one (50
 *   contacts), and of the big business with has_balance=true.
 *
 * The figures that matter are the long/short ratios (1.0x: the cost does not grow with the
 * contact's history) and big/small for the list, then each API figure against the bare server.
 */

function arg(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

const dues = Number(arg('--dues') ?? 1_000_000);
const history = Number(arg('--history') ?? 10_000);
const rounds = Number(arg('--rounds') ?? 5);
const PER_ROUND = 20;
const OPEN = 400;
const store = arg('--store') === 'postgres' ? 'postgres' : 'sqlite';
const databaseUrl = store === 'postgres' ? await benchDatabaseUrl() : undefined;
process.stderr.write(`khata: ${dues} dues on ${store} (seeded, or reused on SQLite)\n`);
const { dataDir, data } = await seedScale({ dues, databaseUrl, fresh: store === 'postgres' });

const { server, base: api } = await startApi(dataDir, databaseUrl);

// No bound on one answer: writing the long account (one import, one receipt of its whole history) takes minutes on a loaded machine.
const agent = new Agent({ connections: 4, headersTimeout: 0, bodyTimeout: 0 });
async function call(base: string, method: 'GET' | 'POST', p: string, body?: unknown, key = data.apiKey) {
  const t = performance.now();
  const res = await request(`${base}${p}`, {
    dispatcher: agent,
    method,
    headers: { 'x-api-key': key, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`${method} ${p}: ${res.statusCode} ${text.slice(0, 500)}`);
  return { ms: performance.now() - t, text };
}

const day = (d: number) => new Date(Date.now() + d * 86_400_000).toISOString().slice(0, 10);

/** A contact of `size` dues settled by one receipt (its history), then OPEN open dues of 1,000. */
async function account(name: string, size: number) {
  const rows = [];
  for (let i = 0; i < size; i++) {
    rows.push({ contact_name: name, amount_paise: 5_000 + (i % 100), due_date: day(-300 + (i % 200)) });
  }
  for (let i = 0; i < OPEN; i++) rows.push({ contact_name: name, amount_paise: 1_000, due_date: day(10 + (i % 50)) });
  let contactId = '';
  for (let from = 0; from < rows.length; from += 10_000) {
    const imported = await call(api, 'POST', '/v1/transactions/import', { rows: rows.slice(from, from + 10_000) });
    const first = (JSON.parse(imported.text) as { data: { ids: string[] } }).data.ids[0] as string;
    contactId ||= (
      JSON.parse((await call(api, 'GET', `/v1/transactions/${first}`)).text) as {
        data: { contact_id: string };
      }
    ).data.contact_id;
  }
  const historyPaise = rows.slice(0, size).reduce((s, r) => s + r.amount_paise, 0);
  await call(api, 'POST', `/v1/contacts/${contactId}/payments`, { amount_paise: historyPaise });
  return contactId;
}

const started = Date.now();
const short = await account(`Short Account ${started}`, 10);
const long = await account(`Long Account ${started}`, history);
process.stderr.write(`khata: accounts written in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);

interface Scenario {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
  key?: string;
}
// Two UTC days on: a day after every entry in any time zone east of UTC (the accounts are written
// today, and in Kolkata 'tomorrow' by UTC is today from 18:30 UTC on).
const tomorrow = day(2);
const oldDay = day(-400);
const scenarios: Scenario[] = [
  {
    name: 'receipt, k=2, short',
    method: 'POST',
    path: `/v1/contacts/${short}/payments`,
    body: { amount_paise: 2_000 },
  },
  { name: 'receipt, k=2, long', method: 'POST', path: `/v1/contacts/${long}/payments`, body: { amount_paise: 2_000 } },
  { name: 'contact, short', method: 'GET', path: `/v1/contacts/${short}` },
  { name: 'contact, long', method: 'GET', path: `/v1/contacts/${long}` },
  // The seed's own buyers: an ordinary one (about 10 dues) and the biggest (1% of the dues, 90% open).
  { name: 'contact, ordinary buyer', method: 'GET', path: `/v1/contacts/${data.contactIds[0] as string}` },
  { name: 'contact, biggest buyer', method: 'GET', path: `/v1/contacts/${data.bigBuyerId}` },
  {
    name: 'statement, empty day, short',
    method: 'GET',
    path: `/v1/contacts/${short}/statement?from=${tomorrow}&to=${tomorrow}`,
  },
  {
    name: 'statement, empty day, long',
    method: 'GET',
    path: `/v1/contacts/${long}/statement?from=${tomorrow}&to=${tomorrow}`,
  },
  {
    name: 'statement, old empty day, short',
    method: 'GET',
    path: `/v1/contacts/${short}/statement?from=${oldDay}&to=${oldDay}`,
  },
  {
    name: 'statement, old empty day, long',
    method: 'GET',
    path: `/v1/contacts/${long}/statement?from=${oldDay}&to=${oldDay}`,
  },
  {
    name: 'list by balance, 50 contacts',
    method: 'GET',
    path: '/v1/contacts?sort=balance_desc&limit=50',
    key: data.smallApiKey,
  },
  { name: `list by balance, ${dues / 10} contacts`, method: 'GET', path: '/v1/contacts?sort=balance_desc&limit=50' },
  {
    name: `list has_balance, ${dues / 10} contacts`,
    method: 'GET',
    path: '/v1/contacts?sort=balance_desc&has_balance=true&limit=50',
  },
];

// The bare server answers each path with the bytes the API answered it with.
const bodies: Record<string, string> = {};
for (const s of scenarios) bodies[`${s.method} ${s.path}`] = (await call(api, s.method, s.path, s.body, s.key)).text;
const bodiesFile = path.join(dataDir, 'khata-bare.json');
writeFileSync(bodiesFile, JSON.stringify(bodies));
const barePort = await freePort();
const bare = await start('bench/bare-server.ts', [bodiesFile], { PORT: String(barePort) }, 'bare ready');
const bareBase = `http://127.0.0.1:${barePort}`;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const figures = new Map<string, { api: number[]; bare: number[] }>(
  scenarios.map((s) => [s.name, { api: [], bare: [] }]),
);
try {
  // Warm-up: statements prepared, code compiled (a few of the receipts' open dues spent).
  for (const s of scenarios) for (let i = 0; i < 5; i++) await call(api, s.method, s.path, s.body, s.key);
  for (let round = 0; round < rounds; round++) {
    for (const s of scenarios) {
      const f = figures.get(s.name) as { api: number[]; bare: number[] };
      const times = { api: [] as number[], bare: [] as number[] };
      for (const side of round % 2 === 0 ? (['api', 'bare'] as const) : (['bare', 'api'] as const)) {
        for (let i = 0; i < PER_ROUND; i++) {
          times[side].push((await call(side === 'api' ? api : bareBase, s.method, s.path, s.body, s.key)).ms);
        }
      }
      f.api.push(median(times.api));
      f.bare.push(median(times.bare));
    }
  }
  const row = (name: string) => {
    const f = figures.get(name) as { api: number[]; bare: number[] };
    return { ms: median(f.api), bareMs: median(f.bare), ratio: median(f.bare) / median(f.api) };
  };
  console.log(`khata, ${store}, ${dues} dues / ${dues / 10} contacts; long account ${history} dues, short 10`);
  for (const s of scenarios) {
    const r = row(s.name);
    console.log(
      `${s.name.padEnd(40)} API p50 ${r.ms.toFixed(2)} ms, bare ${r.bareMs.toFixed(2)} ms: ${r.ratio.toFixed(2)}x of bare`,
    );
  }
  const growth = (a: string, b: string) => (row(b).ms / row(a).ms).toFixed(2);
  console.log(`receipt long/short ${growth('receipt, k=2, short', 'receipt, k=2, long')}x`);
  console.log(`contact long/short ${growth('contact, short', 'contact, long')}x`);
  console.log(`contact biggest/ordinary ${growth('contact, ordinary buyer', 'contact, biggest buyer')}x`);
  console.log(`statement long/short ${growth('statement, empty day, short', 'statement, empty day, long')}x`);
  console.log(
    `statement, old day, long/short ${growth('statement, old empty day, short', 'statement, old empty day, long')}x`,
  );
  console.log(
    `statement, long, old day/tomorrow ${growth('statement, empty day, long', 'statement, old empty day, long')}x`,
  );
  console.log(
    `list by balance big/small ${growth('list by balance, 50 contacts', `list by balance, ${dues / 10} contacts`)}x`,
  );
} finally {
  await agent.close();
  await stop(bare);
  await stop(server);
}
