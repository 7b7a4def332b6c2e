import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { migrate, openStore } from '../src/db/store.js';
import { systemClock } from '../src/lib/clock.js';
import { createServices } from '../src/services.js';
import { importRow } from './lib.js';

/**
 * The import alone, in-process (no HTTP): `--runs N` imports of `--rows` dues (10,000), each into a
 * new business, the same row shapes as bench:bulk; prints dues/s per run. `--postgres URL` for
 * PostgreSQL (a throw-away database). With `node --cpu-prof` (tsx), a profile of just this. The
 * last line also gives this process's CPU time per due of each run (every thread of the process).
 */
const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const ROWS = Number(arg('--rows') ?? 10_000);
const RUNS = Number(arg('--runs') ?? 5);
const DATABASE_URL = arg('--postgres') ?? '';

const row = importRow;

async function main() {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-import-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    DATABASE_URL,
    ...(DATABASE_URL && { ENCRYPTION_KEY: randomBytes(32).toString('hex') }),
  });
  const store = openStore(config);
  try {
    await migrate(store.db);
    const services = createServices({ store, clock: systemClock, config });
    const rates: number[] = [];
    const cpuUsPerDue: number[] = [];
    // `--same-business`: every run into one business, which grows by ROWS a run (does an import
    // get slower as the business grows?).
    const same = process.argv.includes('--same-business')
      ? (await services.businesses.create({ name: 'Import Growing', phone: '+91 90000 00022' })).business
      : undefined;
    for (let run = 0; run < RUNS; run++) {
      const business =
        same ?? (await services.businesses.create({ name: `Import ${run}`, phone: '+91 90000 00022' })).business;
      const rows = Array.from({ length: ROWS }, (_, i) => row(i, `IMP${run}`));
      const cpu = process.cpuUsage();
      const start = performance.now();
      const result = await services.bulk.importDues(business, { rows });
      const seconds = (performance.now() - start) / 1000;
      const used = process.cpuUsage(cpu);
      cpuUsPerDue.push(Math.round((used.user + used.system) / ROWS));
      if (result.created !== ROWS) throw new Error(`created ${result.created}`);
      rates.push(Math.round(ROWS / seconds));
      process.stdout.write(`run ${run + 1}: ${rates.at(-1)} dues/s (${Math.round(seconds * 1000)} ms)\n`);
    }
    process.stdout.write(
      `${DATABASE_URL ? 'postgres' : 'sqlite'}: ${JSON.stringify({ duesPerSecond: rates, cpuUsPerDue })}\n`,
    );
  } finally {
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
