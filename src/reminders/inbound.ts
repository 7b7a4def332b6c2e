import { findBusinessesByPhone } from '../businesses/repository.js';
import type { BusinessService } from '../businesses/service.js';
import { ChannelError, type ChatChannel, type InboundMessage, type InboundStatus } from '../channels/channel.js';
import type { Db } from '../db/schema.js';
import type { Clock } from '../lib/clock.js';
import * as repo from './repository.js';

/** Delivery statuses only move forward (Meta can deliver "read" before "delivered"). */
const DELIVERY_RANK: Record<string, number> = { sent: 1, delivered: 2, read: 3, failed: 4 };

export type Command = 'stop' | 'start' | 'api_key';

/** The words the service answers to: case, spacing and punctuation around them do not matter. */
export function parseCommand(text: string): Command | null {
  const words = text
    .toUpperCase()
    .replace(/[^A-Z0-9 ]+/g, ' ')
    .trim()
    .split(/\s+/)
    .join(' ');
  if (words === 'STOP') return 'stop';
  if (words === 'START') return 'start';
  if (words === 'API KEY') return 'api_key';
  return null;
}

/**
 * Inbound chat (PRODUCT part 6): STOP / START from a phone opt every contact with that phone out of
 * (back into) reminders, "API KEY" from a business's registered phone issues a key and replies with
 * it, and delivery statuses are recorded on the reminder they concern.
 */
export class ChatInboundService {
  constructor(
    private readonly deps: {
      db: Db;
      clock: Clock;
      channel: ChatChannel;
      businesses: BusinessService;
    },
  ) {}

  /**
   * Returns the replies the channel refused (for the caller to log). They do not fail the call: the
   * message has been acted on, and a retry of the webhook would be ignored as already seen.
   */
  async handle(input: { messages: InboundMessage[]; statuses: InboundStatus[] }): Promise<ChannelError[]> {
    const replyFailures: ChannelError[] = [];
    for (const message of input.messages) {
      try {
        await this.handleMessage(message);
      } catch (error) {
        if (!(error instanceof ChannelError)) throw error;
        replyFailures.push(error);
      }
    }
    for (const status of input.statuses) await this.recordStatus(status);
    return replyFailures;
  }

  private async handleMessage(message: InboundMessage): Promise<void> {
    const { db, clock } = this.deps;
    const command = parseCommand(message.text);
    if (command === null) return;
    const at = clock.now().toISOString();
    // Acted on once: Meta retries a webhook call it did not see answered in time.
    const first = await db
      .insertInto('chat_inbound_messages')
      .values({ id: message.id, phone: message.from, received_at: at })
      .onConflict((oc) => oc.column('id').doNothing())
      .returning('id')
      .executeTakeFirst();
    if (!first) return;
    switch (command) {
      case 'stop':
        await db
          .insertInto('chat_opt_outs')
          .values({ phone: message.from, opted_out_at: at })
          .onConflict((oc) => oc.column('phone').doNothing())
          .execute();
        return;
      case 'start':
        await db.deleteFrom('chat_opt_outs').where('phone', '=', message.from).execute();
        return;
      case 'api_key':
        await this.issueKey(message.from);
        return;
    }
  }

  /**
   * SPEC part 5: the key is issued on request through the chat channel, to the phone the business
   * registered. A registered business without API access is told why; other phones get nothing.
   */
  private async issueKey(phone: string): Promise<void> {
    const { businesses, channel } = this.deps;
    for (const business of await findBusinessesByPhone(this.deps.db, phone)) {
      if (!businesses.hasApiAccess(business)) {
        await channel.send({
          kind: 'text',
          to: phone,
          text: `${business.name}: API access comes with an active business plan, so no API key was issued.`,
        });
        continue;
      }
      const apiKey = await businesses.issueKey(business.id);
      await channel.send({
        kind: 'text',
        to: phone,
        text: `Your new API key for ${business.name}:\n${apiKey}\nIt is shown only this once; keep it secret. Keys issued before keep working until revoked.`,
      });
    }
  }

  private async recordStatus(status: InboundStatus): Promise<void> {
    const rank = DELIVERY_RANK[status.status];
    if (rank === undefined) return;
    const reminder = await repo.findByProviderMessageId(this.deps.db, status.messageId);
    if (!reminder) return;
    if ((DELIVERY_RANK[reminder.delivery_status ?? ''] ?? 0) >= rank) return;
    await repo.setDeliveryStatus(
      this.deps.db,
      reminder.id,
      status.status,
      status.status === 'failed' ? `delivery_failed: ${status.error ?? 'unknown'}`.slice(0, 500) : null,
      this.deps.clock.now().toISOString(),
    );
  }
}
