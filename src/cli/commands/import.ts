import { readFile } from 'node:fs/promises';
import { allowOnly, required, UsageError } from '../args.js';
import { progressBar } from './progress.js';
import type { CliCommand } from './types.js';

export default {
  async run(v, ctx) {
    allowOnly(v, ['business', 'file', 'dry-run']);
    const businessId = required(v, 'business');
    const file = required(v, 'file');
    const services = await ctx.services({ writes: true });
    const business = await services.businesses.get(businessId);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      throw new UsageError(`cannot read --file ${file}: ${(error as Error).message}`);
    }
    const source = file.toLowerCase().endsWith('.json') ? { rows: jsonRows(text) } : { csv: text };
    const result = await services.bulk.importDues(business, source, {
      dryRun: v['dry-run'] === true,
      onProgress: (done, total) => progressBar(ctx.io, done, total),
    });
    return {
      json: { data: result },
      text: `${v['dry-run'] ? 'dry run: would import' : 'imported'} ${result.created} dues (${result.contacts_created} new contacts)`,
    };
  },
} satisfies CliCommand;

function jsonRows(text: string): unknown[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new UsageError('--file is not valid JSON');
  }
  const rows = (parsed as { rows?: unknown } | null)?.rows;
  if (!Array.isArray(rows)) throw new UsageError('a JSON --file must be {"rows": [...]}');
  return rows;
}
