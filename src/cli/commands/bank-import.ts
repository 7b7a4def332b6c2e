import { readFile } from 'node:fs/promises';
import { allowOnly, required, UsageError } from '../args.js';
import type { CliCommand } from './types.js';

/** Uploads a bank statement (CSV) as POST /v1/bank-statements does: matched, all or nothing. */
export default {
  async run(v, ctx) {
    allowOnly(v, ['business', 'file']);
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
    const r = await services.bank.upload(business, text);
    return {
      json: { data: r },
      text: `read ${r.lines} lines: ${r.credits} new credits (${r.duplicates} seen before); ${r.matched} matched, ${r.suggested} suggested, ${r.unmatched} unmatched`,
    };
  },
} satisfies CliCommand;
