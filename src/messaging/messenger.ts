import type { ChatChannel, ChatMessage, MessageContext, SendResult } from '../channels/channel.js';
import type { ChatMessageTable, Db } from '../db/schema.js';
import type { Clock } from '../lib/clock.js';
import { uuidv7 } from '../lib/ids.js';
import type { SendPace } from './pace.js';
import { insertMessage } from './repository.js';
import type { MessageShaper } from './window.js';

/**
 * Every message the service sends goes through here, around the channel adapter: the number's
 * pace is charged (pace.ts), a template to a buyer inside the 24-hour window may go as free text
 * (window.ts), and the message is recorded with whom it concerns (`chat_messages`), which is what
 * routes the buyer's reply and the delivery statuses to the right business and prices the month.
 */
export class Messenger implements ChatChannel {
  readonly name: ChatChannel['name'];

  constructor(
    private readonly deps: { db: Db; clock: Clock; channel: ChatChannel; pace: SendPace; shaper?: MessageShaper },
  ) {
    this.name = deps.channel.name;
  }

  async send(message: ChatMessage, context?: MessageContext): Promise<SendResult> {
    const { messageId, record } = await this.deliver(message, context);
    await insertMessage(this.deps.db, record);
    return { messageId };
  }

  /**
   * send without its record: the caller writes `record` (insertMessage) in the transaction that
   * records the send on its side (a reminder's), one commit for both.
   */
  async deliver(
    message: ChatMessage,
    context?: MessageContext,
  ): Promise<{ messageId: string; record: ChatMessageTable }> {
    const { clock, channel, pace, shaper } = this.deps;
    if (!context?.paced) await pace.charge(1);
    const outgoing = shaper && context ? await shaper.shape(message, context) : message;
    const result = await channel.send(outgoing, context);
    const at = clock.now();
    return {
      messageId: result.messageId,
      record: {
        id: uuidv7(at.getTime()),
        provider_message_id: result.messageId,
        business_id: context?.businessId ?? null,
        contact_id: context?.contactId ?? null,
        reminder_id: context?.reminderId ?? null,
        phone: outgoing.to,
        purpose: context?.purpose ?? 'notice',
        kind: outgoing.kind,
        template: outgoing.kind === 'template' ? outgoing.template : null,
        category: null,
        cost_millipaise: 0,
        delivery: null,
        error_code: null,
        sent_at: at.toISOString(),
        updated_at: at.toISOString(),
      },
    };
  }
}
