import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import type { Executor } from '../../db/schema.js';
import { EXPORT_KINDS, type ExportKind } from './kinds.js';
import { EXPORT_PAGE, exportPage, hasTable } from './repository.js';

export class ExportFolderError extends Error {}

export interface ExportResult {
  dir: string;
  /** lines written per file (`dues.jsonl` -> its count) */
  files: Record<string, number>;
}

/** A row as one line: its JSON-text columns as the JSON they hold, secrets left out. */
export function exportLine(kind: ExportKind, row: Record<string, unknown>): string {
  const out: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(row)) {
    if (kind.omit?.includes(column)) continue;
    out[column] = kind.json?.includes(column) && typeof value === 'string' ? JSON.parse(value) : value;
  }
  return `${JSON.stringify(out)}\n`;
}

/**
 * Everything a business holds, into `dir` (created; refused when it exists and is not empty): one
 * JSON-lines file per kind (EXPORT_KINDS), and manifest.json with the counts. Rows are read a
 * page at a time and written with back-pressure: memory stays flat whatever the business's size.
 * Files are owner-only (0600): they hold the buyers' names and phones.
 */
export async function exportBusiness(db: Executor, businessId: string, dir: string, now: Date): Promise<ExportResult> {
  const target = path.resolve(dir);
  if (fs.existsSync(target) && fs.readdirSync(target).length > 0) {
    throw new ExportFolderError(`${target} is not empty: export into a new folder`);
  }
  fs.mkdirSync(target, { recursive: true, mode: 0o700 });
  const files: Record<string, number> = {};
  for (const kind of EXPORT_KINDS) {
    if (!(await hasTable(db, kind.table))) continue;
    const name = `${kind.file}.jsonl`;
    const stream = fs.createWriteStream(path.join(target, name), { mode: 0o600 });
    let count = 0;
    try {
      let after: string | null = null;
      for (;;) {
        const rows = await exportPage(db, kind, businessId, after);
        for (const row of rows) {
          if (!stream.write(exportLine(kind, row))) await once(stream, 'drain');
          count++;
        }
        if (rows.length < EXPORT_PAGE) break;
        after = String(rows[rows.length - 1]?.[kind.key]);
      }
    } finally {
      stream.end();
      await once(stream, 'close');
    }
    files[name] = count;
  }
  const manifest = { business_id: businessId, exported_at: now.toISOString(), files };
  fs.writeFileSync(path.join(target, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
  return { dir: target, files };
}
