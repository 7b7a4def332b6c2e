import { GraphTemplatesApi } from '../../channels/whatsapp-templates.js';
import { syncTemplates } from '../../messaging/template-sync.js';
import { allowOnly, UsageError } from '../args.js';
import type { CliCommand } from './types.js';

/**
 * Creates at Meta the message templates the service sends that the WhatsApp Business Account lacks
 * (docs/whatsapp-templates.json). Needs no store: only the Graph API's address, token and account.
 */
export default {
  async run(v, ctx) {
    allowOnly(v, ['dry-run']);
    const { whatsapp } = await ctx.config();
    if (!whatsapp.businessAccountId) throw new UsageError('templates sync needs WHATSAPP_BUSINESS_ACCOUNT_ID');
    if (!whatsapp.token) throw new UsageError('templates sync needs WHATSAPP_TOKEN');
    const api = new GraphTemplatesApi({
      apiBase: whatsapp.apiBase ?? 'https://graph.facebook.com/v21.0',
      businessAccountId: whatsapp.businessAccountId,
      token: whatsapp.token,
    });
    const outcomes = await syncTemplates(api, { dryRun: v['dry-run'] === true });
    const failed = outcomes.filter((o) => o.outcome === 'failed');
    const lines = outcomes.map(
      (o) =>
        `${o.name} (${o.language}): ${o.outcome.replace('_', ' ')}${o.status ? ` [${o.status}]` : ''}${o.error ? `: ${o.error}` : ''}`,
    );
    if (failed.length > 0) {
      // Exit 1, with what happened to each template on stderr (and in the JSON error).
      for (const line of lines) ctx.io.err(line);
      throw new Error(`${failed.length} template(s) could not be created`);
    }
    return { json: { data: outcomes }, text: lines.join('\n') };
  },
} satisfies CliCommand;
