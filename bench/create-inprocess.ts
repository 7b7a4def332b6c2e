import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { migrate, openStore } from '../src/db/store.js';
import { systemClock } from '../src/lib/clock.js';
import { createServices } from '../src/services.js';

/**
 * Creates of a due for a known contact (POST /v1/transactions with contact_id, without HTTP),
 * in-process on a throw-away PostgreSQL database: `--creates N` (2,000) with `--concurrency C`
 * (10) at once, after 200 of warm-up; prints this process's CPU time per create and creates/s.
 */
const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const CREATES = Number(arg('--creates') ?? 2000);
const CONCURRENCY = Number(arg('--concurrency') ?? 10);
const SERVER = arg('--postgres') ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function main() {
  const name = `bench_create_${process.pid}_${randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: SERVER });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(SERVER);
  url.pathname = `/${name}`;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-create-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    DATABASE_URL: url.toString(),
    ENCRYPTION_KEY: randomBytes(32).toString('hex'),
  });
  const store = openStore(config);
  try {
    await migrate(store.db);
    const services = createServices({ store, clock: systemClock, config });
    const { business } = await services.businesses.create({ name: 'Create Bench', phone: '+91 90000 00022' });
    const contact = (await services.contacts.create(business, { name: 'Known Buyer' })) as { contact: { id: string } };
    const body = { contact_id: contact.contact.id, amount_paise: 150_000, due_date: '2030-01-01' };
    const run = async (n: number) => {
      let next = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < n) {
            next++;
            await services.transactions.create(business, body as never);
          }
        }),
      );
    };
    await run(200);
    const cpu = process.cpuUsage();
    const start = performance.now();
    await run(CREATES);
    const seconds = (performance.now() - start) / 1000;
    const used = process.cpuUsage(cpu);
    process.stdout.write(
      `${JSON.stringify({ cpuUsPerCreate: Math.round((used.user + used.system) / CREATES), createsPerSecond: Math.round(CREATES / seconds) })}\n`,
    );
  } finally {
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
    await admin.query(`drop database ${name} with (force)`);
    await admin.end();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
