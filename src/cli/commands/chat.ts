import type { ChatChannel, ChatMessage } from '../../channels/channel.js';
import { createChannel } from '../../channels/index.js';
import { uuidv7 } from '../../lib/ids.js';
import { allowOnly, required, UsageError } from '../args.js';
import { describeMessage } from './messages.js';
import type { CliCommand } from './types.js';

/**
 * `chat --business ID "add Ravi 500"`: the text as a message from the business's registered phone,
 * handled by the same code as a message arriving on the WhatsApp webhook; prints what the service
 * answered. The answer is also sent through the configured channel (recorded, with `log`).
 */
export default {
  async run(v, ctx) {
    allowOnly(v, ['business']);
    const businessId = required(v, 'business');
    const text = ctx.args.join(' ').trim();
    if (text === '') throw new UsageError('the message is required: chat --business ID "add Ravi 500"');
    const sent: ChatMessage[] = [];
    const channel = createChannel(await ctx.config());
    const watching: ChatChannel = {
      name: channel.name,
      async send(message, context) {
        const result = await channel.send(message, context);
        sent.push(message);
        return result;
      },
    };
    const services = await ctx.services({ writes: true, channel: watching });
    const business = await services.businesses.get(businessId);
    const failures = await services.chatInbound.handle({
      messages: [{ id: `cli.${uuidv7()}`, from: business.phone, text }],
      statuses: [],
    });
    if (failures.length > 0) throw failures[0];
    const replies = sent.filter((m) => m.to === business.phone).map(describeMessage);
    return {
      json: { reply: replies.length > 0 ? replies.join('\n') : null },
      text: replies.length > 0 ? replies.join('\n') : '(no reply)',
    };
  },
} satisfies CliCommand;
