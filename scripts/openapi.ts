import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildApp } from '../src/app.js';
import { bootstrap } from '../src/bootstrap.js';

/** The server's address in the written document (the live one says PUBLIC_BASE_URL). */
export const DOCUMENT_SERVER = 'http://localhost:3000';

/**
 * The OpenAPI document the server serves at /openapi.json, as JSON text (2-space indented, ending
 * in a newline). It builds the app on a throw-away SQLite store and never listens.
 */
export async function openApiText(): Promise<string> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'receivables-openapi-'));
  try {
    const runtime = await bootstrap({
      env: { DATA_DIR: dataDir, PUBLIC_BASE_URL: DOCUMENT_SERVER, WORKERS: 'off' },
      logLevel: 'silent',
      shortLived: true,
    });
    try {
      const app = await buildApp(runtime, runtime.logger);
      await app.ready();
      const text = `${JSON.stringify(app.swagger(), null, 2)}\n`;
      await app.close();
      return text;
    } finally {
      await runtime.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** `tsx scripts/openapi.ts [FILE]`: prints the document, or writes it to FILE. */
async function main() {
  const text = await openApiText();
  const out = process.argv[2];
  if (out) {
    mkdirSync(path.dirname(out), { recursive: true });
    writeFileSync(out, text);
  } else process.stdout.write(text);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
