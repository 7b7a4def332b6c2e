import { createLoginLink } from '../../dashboard/auth.js';
import { ManualClock, systemClock } from '../../lib/clock.js';
import { MemoryRateLimitStore } from '../../rate-limit/memory.js';
import { allowOnly, UsageError } from '../args.js';
import type { CliCommand } from './types.js';

/**
 * `demo [--json]`: a demo business full of data (src/demo/seed.ts), its API key and a dashboard
 * sign-in link on the address the server is reached at (PUBLIC_BASE_URL, else HOST/PORT).
 */
export default {
  async run(v, ctx) {
    allowOnly(v, []);
    const config = await ctx.config();
    // The demo's buyers have made-up phone numbers: nothing may really be sent to them.
    if (config.chatChannel !== 'log') {
      throw new UsageError(`demo needs CHAT_CHANNEL=log (its buyers' phones are made up); it is ${config.chatChannel}`);
    }
    const now = systemClock.now();
    const clock = new ManualClock(now);
    const services = await ctx.services({ writes: true, clock });
    const { db } = await ctx.store({ writes: true });
    const { seedDemo } = await import('../../demo/seed.js');
    const demo = await seedDemo({ services, db, clock, rateLimits: new MemoryRateLimitStore(clock), now });
    const base = await ctx.publicBaseUrl();
    const loginUrl = await createLoginLink({ db, clock: systemClock, publicBaseUrl: base }, demo.business.id);
    const { business, apiKey } = demo;
    return {
      json: {
        business: { id: business.id, name: business.name },
        api_key: apiKey,
        login_url: loginUrl,
        buyers: demo.buyers,
        dues: demo.dues,
        paid: demo.paid,
        part_paid: demo.partPaid,
        overdue: demo.overdue,
        receipts: demo.receipts,
        bank_credits: demo.bank,
        promise: demo.promised,
        pending_claims: demo.pendingClaims,
      },
      text: [
        `Created ${business.name} (${business.id}):`,
        `  ${demo.buyers} buyers, ${demo.dues} dues over the last 4 months: ${demo.paid} paid, ${demo.partPaid} part paid, ${demo.overdue} overdue, ${demo.receipts} receipts into buyers' accounts`,
        `  a bank statement: ${demo.bank.matched} credits matched to dues, ${demo.bank.suggested} suggested, ${demo.bank.unmatched} unmatched`,
        `  ${demo.promised ? 'a buyer promised on chat to pay in 5 days; ' : ''}${demo.pendingClaims} "I have paid" claim waiting to be confirmed`,
        '',
        `API key (shown once): ${apiKey}`,
        `Dashboard sign-in link (15 minutes, one use): ${loginUrl}`,
        '',
        'Try the API:',
        `  curl -s ${base}/v1/summary -H 'x-api-key: ${apiKey}'`,
        `  curl -s '${base}/v1/transactions?status=overdue&limit=5' -H 'x-api-key: ${apiKey}'`,
        `Try the chat: npm run -s cli -- chat --business ${business.id} "dues"`,
      ].join('\n'),
    };
  },
} satisfies CliCommand;
