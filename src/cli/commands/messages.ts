import type { ChatMessage } from '../../channels/channel.js';
import { chatLogFile } from '../../channels/index.js';
import { readRecordedMessages } from '../../channels/log.js';
import { findTemplate, renderBody } from '../../messaging/templates.js';
import { allowOnly, required, UsageError } from '../args.js';
import type { CliCommand } from './types.js';

/** A message as its reader sees it: free text as it is, a template with its parameters filled in. */
export function describeMessage(message: ChatMessage): string {
  if (message.kind === 'text') return message.text;
  const entry = findTemplate(message.template, message.language) ?? findTemplate(message.template, 'en');
  return entry ? renderBody(entry, message.parameters) : `[${message.template}] ${message.parameters.join(' | ')}`;
}

/**
 * `messages --business ID [--limit 20]`: the last messages CHAT_CHANNEL=log recorded for the
 * business (to its phone, or sent on its behalf to its buyers), from any process. Reads only.
 */
export default {
  async run(v, ctx) {
    allowOnly(v, ['business', 'limit']);
    const businessId = required(v, 'business');
    const limit = v.limit === undefined ? 20 : Number(v.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
      throw new UsageError('--limit must be a whole number from 1 to 1000');
    }
    const config = await ctx.config();
    if (config.chatChannel !== 'log') {
      throw new UsageError(
        `messages shows what CHAT_CHANNEL=log records; this configuration sends with ${config.chatChannel}`,
      );
    }
    const business = await (await ctx.businesses({ writes: false })).get(businessId);
    // Read generously, then keep the business's own: the file holds every business's messages.
    const recorded = await readRecordedMessages(chatLogFile(config), 5000);
    const mine = recorded
      .filter((m) => m.businessId === business.id || m.to === business.phone)
      .slice(-limit)
      .map((m) => ({
        at: m.at,
        to: m.to,
        kind: m.kind,
        template: m.kind === 'template' ? m.template : null,
        text: describeMessage(m),
      }));
    return {
      json: { messages: mine },
      text:
        mine.length > 0
          ? mine
              .map(
                (m) =>
                  `${m.at}  to ${m.to}${m.template ? `  [${m.template}]` : ''}\n  ${m.text.replace(/\n/g, '\n  ')}`,
              )
              .join('\n')
          : 'no messages recorded for this business yet',
    };
  },
} satisfies CliCommand;
