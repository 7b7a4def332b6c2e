import { TRANSACTION_STATUS_FILTERS } from '../../transactions/schema.js';
import { allowOnly, required, UsageError } from '../args.js';
import { progressBar } from './progress.js';
import type { CliCommand } from './types.js';

/** Streams the CSV to stdout; prints no JSON object of its own. */
export default {
  async run(v, ctx) {
    allowOnly(v, ['business', 'status']);
    const status = v.status;
    if (status !== undefined && !(TRANSACTION_STATUS_FILTERS as readonly string[]).includes(status)) {
      throw new UsageError(`--status must be one of ${TRANSACTION_STATUS_FILTERS.join(', ')}`);
    }
    const services = await ctx.services({ writes: false });
    const business = await services.businesses.get(required(v, 'business'));
    const io = ctx.io;
    const write = io.write ?? ((chunk: string) => io.out(chunk.replace(/\r\n$/, '')));
    let rows = -1;
    for await (const chunk of services.bulk.exportCsv(business, { ...(status !== undefined && { status }) })) {
      await write(chunk);
      rows += chunk.split('\r\n').length - 1;
      progressBar(io, rows);
    }
    return undefined;
  },
} satisfies CliCommand;
