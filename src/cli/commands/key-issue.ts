import { allowOnly, required } from '../args.js';
import type { CliCommand } from './types.js';

export default {
  async run(v, ctx) {
    allowOnly(v, ['business']);
    const businesses = await ctx.businesses({ writes: true });
    const apiKey = await businesses.issueKey(required(v, 'business'));
    return { json: { api_key: apiKey }, text: `API key (shown once): ${apiKey}` };
  },
} satisfies CliCommand;
