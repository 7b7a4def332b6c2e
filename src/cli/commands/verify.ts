import { allowOnly } from '../args.js';
import type { CliCommand } from './types.js';

/**
 * Checks the store: its integrity, and every kept figure recomputed from the rows. Reads only (no
 * migration run). Exit 0 only when everything agrees, 1 otherwise; the report names each
 * difference.
 */
export default {
  async run(v, ctx) {
    allowOnly(v, ['business']);
    const businessId = v.business;
    // A business that does not exist is a bad argument (exit 2), not an empty report.
    if (businessId !== undefined) await (await ctx.businesses({ writes: false })).get(businessId);
    const { db } = await ctx.store({ writes: false });
    const { describeDifference, verifyStore } = await import('../../ops/verify/index.js');
    const report = await verifyStore(db, { ...(businessId !== undefined && { businessId }) });
    const { integrity } = report;
    const lines = [
      `integrity: ${integrity.status} (${integrity.note})`,
      ...integrity.problems.map((p) => `  ${p}`),
      ...report.checks.map((c) => `${c.name}: ${c.differences === 0 ? 'agrees' : `${c.differences} difference(s)`}`),
      ...report.differences.map((d) => `  ${describeDifference(d)}`),
      report.differences_total > report.differences.length
        ? `  ... and ${report.differences_total - report.differences.length} more`
        : '',
      `${report.businesses} business(es) checked: ${report.ok ? 'every figure agrees with the rows' : 'the store does NOT agree with its rows'}`,
    ];
    return { json: report, text: lines.filter((l) => l !== '').join('\n'), exitCode: report.ok ? 0 : 1 };
  },
} satisfies CliCommand;
