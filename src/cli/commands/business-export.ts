import { allowOnly, required, UsageError } from '../args.js';
import type { CliCommand } from './types.js';

/** Everything a business holds, as JSON lines, one file per kind, into a new folder. Reads only. */
export default {
  async run(v, ctx) {
    allowOnly(v, ['business', 'out']);
    const businessId = required(v, 'business');
    const out = required(v, 'out');
    await (await ctx.businesses({ writes: false })).get(businessId);
    const { db } = await ctx.store({ writes: false });
    const { ExportFolderError, exportBusiness } = await import('../../ops/export/business-export.js');
    try {
      const result = await exportBusiness(db, businessId, out, new Date());
      const lines = Object.entries(result.files).map(([file, n]) => `  ${file}: ${n}`);
      return {
        json: { export: result },
        text: [`exported business ${businessId} to ${result.dir}`, ...lines].join('\n'),
      };
    } catch (error) {
      if (error instanceof ExportFolderError) throw new UsageError(error.message);
      throw error;
    }
  },
} satisfies CliCommand;
