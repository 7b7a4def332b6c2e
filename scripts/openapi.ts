import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildApp } from '../src/app.js';
import { bootstrap } from '../src/bootstrap.js';

/**
 * Prints the OpenAPI document the server serves at /openapi.json (or writes it to the file named
 * by the first argument). It builds the app on a throw-away SQLite store and never listens.
 */
async function main() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'receivables-openapi-'));
  try {
    const runtime = await bootstrap({
      env: { DATA_DIR: dataDir, DATABASE_URL: undefined, REDIS_URL: undefined, WORKERS: 'off' },
      logLevel: 'silent',
      shortLived: true,
    });
    const app = await buildApp(runtime, runtime.logger);
    await app.ready();
    const text = `${JSON.stringify(app.swagger(), null, 2)}\n`;
    await app.close();
    await runtime.close();
    const out = process.argv[2];
    if (out) writeFileSync(out, text);
    else process.stdout.write(text);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
