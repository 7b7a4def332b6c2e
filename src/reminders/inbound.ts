import { runAs } from '../audit/context.js';
import { MAX_ACTIVE_KEYS } from '../businesses/keys.js';
import { findBusinessesByPhone } from '../businesses/repository.js';
import type { BusinessService } from '../businesses/service.js';
import { ChannelError, type ChatChannel, type InboundMessage, type InboundStatus } from '../channels/channel.js';
import type { ChatCommandService } from '../chat-commands/service.js';
import type { Db } from '../db/schema.js';
import { languageOf, translator } from '../i18n/index.js';
import type { Clock } from '../lib/clock.js';
import type { PriceTable } from '../messaging/prices.js';
import { DELIVERY_RANK, markInbound } from '../messaging/repository.js';
import { answersBuyerMessage, replyTarget } from '../messaging/routing.js';
import { applyStatus } from '../messaging/statuses.js';
import { membershipsByPhone } from '../users/repository.js';
import { recordBuyerReply } from './promises.js';
import * as repo from './repository.js';

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
 * it, any other message from a business's registered phone is a chat command (PRODUCT part 15,
 * src/chat-commands/), and delivery statuses are recorded on the reminder they concern.
 */
export class ChatInboundService {
  constructor(
    private readonly deps: {
      db: Db;
      clock: Clock;
      /** the messenger (messaging/messenger.ts): replies are paced and recorded like any message */
      channel: ChatChannel;
      businesses: BusinessService;
      commands: ChatCommandService;
      prices: PriceTable;
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
    const { db } = this.deps;
    // The phone can receive, and its 24-hour window is open (messaging/window.ts).
    await markInbound(db, message.from, this.deps.clock.now().toISOString());
    const command = parseCommand(message.text);
    if (command === null) {
      if (!(await this.ownerCommand(message))) await this.buyerReply(message);
      return;
    }
    switch (command) {
      case 'stop':
      case 'start':
        // The message is marked seen in the same transaction as its effect: a crash between two
        // separate writes would leave it seen and the STOP lost.
        await db.transaction().execute(async (trx) => {
          if (!(await this.firstDelivery(trx, message))) return;
          if (command === 'stop') {
            await trx
              .insertInto('chat_opt_outs')
              .values({ phone: message.from, opted_out_at: this.deps.clock.now().toISOString() })
              .onConflict((oc) => oc.column('phone').doNothing())
              .execute();
          } else {
            await trx.deleteFrom('chat_opt_outs').where('phone', '=', message.from).execute();
          }
        });
        return;
      case 'api_key':
        if (!(await this.firstDelivery(db, message))) return;
        await this.issueKey(message.from);
        return;
    }
  }

  /**
   * Acted on once: Meta retries a webhook call it did not see answered in time, with the same
   * message id. True the first time a message id is seen (the row is written by `db`, the database
   * or a transaction).
   */
  private async firstDelivery(db: Pick<Db, 'insertInto'>, message: InboundMessage): Promise<boolean> {
    const first = await db
      .insertInto('chat_inbound_messages')
      .values({ id: message.id, phone: message.from, received_at: this.deps.clock.now().toISOString() })
      .onConflict((oc) => oc.column('id').doNothing())
      .returning('id')
      .executeTakeFirst();
    return first !== undefined;
  }

  /**
   * PRODUCT part 15: any other message from a business's own registered phone is a chat command,
   * answered in one message; a message from any other phone is none (and changes nothing).
   *
   * A command's write commits in one transaction with its own mark (the message id as its
   * Idempotency-Key, chat-commands/service.ts), so a crash at any moment neither drops the command
   * nor lets a redelivery repeat it: the redelivery replays the reply. The message is marked seen
   * once the command is done, and only the delivery that marks it sends the reply (a concurrent
   * duplicate of the webhook sends none). A command that fails unexpectedly (database
   * unavailable) leaves nothing, and the webhook answers 500 so that Meta's retry runs it again.
   */
  private async ownerCommand(message: InboundMessage): Promise<boolean> {
    const { db, channel, commands } = this.deps;
    // The owner's phone and every staff user's (PRODUCT part 23: a staff phone acts within its role).
    const owners = await membershipsByPhone(db, message.from);
    if (owners.length === 0) return false;
    // An owner who is also another business's buyer answers that business's reminder: a reply.
    if (await answersBuyerMessage(db, message)) return false;
    if (await this.seen(message)) return true;
    const only = owners.length === 1 ? owners[0] : undefined;
    let reply: string;
    if (only) {
      const { user_id, user_role, user_name, ...business } = only;
      reply = await commands.handle(business, message, { id: user_id, role: user_role, name: user_name });
    } else {
      // Several businesses: their language when they share one, else English.
      const languages = new Set(owners.map((b) => languageOf(b.language)));
      const t = translator(languages.size === 1 ? (owners[0]?.language ?? 'en') : 'en');
      reply = t('chat.many_businesses', { count: owners.length, names: owners.map((b) => b.name).join(', ') });
    }
    if (!(await this.firstDelivery(db, message))) return true;
    await channel.send(
      { kind: 'text', to: message.from, text: reply },
      { purpose: 'reply', businessId: only?.id ?? null },
    );
    return true;
  }

  /**
   * PRODUCT part 13: any other message is a buyer's reply (promises.ts), seen once, for the one
   * business it is meant for (messaging/routing.ts); a reply meant for none is only marked seen.
   */
  private async buyerReply(message: InboundMessage): Promise<void> {
    await this.deps.db.transaction().execute(async (trx) => {
      if (!(await this.firstDelivery(trx, message))) return;
      const target = await replyTarget(trx, message);
      if (target) await recordBuyerReply(trx, message, target, this.deps.clock.now());
    });
  }

  private async seen(message: InboundMessage): Promise<boolean> {
    const row = await this.deps.db
      .selectFrom('chat_inbound_messages')
      .select('id')
      .where('id', '=', message.id)
      .executeTakeFirst();
    return row !== undefined;
  }

  /**
   * SPEC part 5: the key is issued on request through the chat channel, to the phone the business
   * registered. A registered business without API access is told why; other phones get nothing.
   */
  private async issueKey(phone: string): Promise<void> {
    const { businesses, channel } = this.deps;
    for (const business of await findBusinessesByPhone(this.deps.db, phone)) {
      if (!businesses.hasApiAccess(business)) {
        await channel.send(
          {
            kind: 'text',
            to: phone,
            text: translator(business.language)('chat.key_no_plan', { business: business.name }),
          },
          { purpose: 'reply', businessId: business.id },
        );
        continue;
      }
      // Asked for by the business's own phone: the owner (whose user id is the business's) over chat.
      const issued = await runAs({ type: 'chat', id: business.id, name: business.name }, () =>
        businesses.issueChatKey(business.id),
      );
      await channel.send(
        { kind: 'text', to: phone, text: chatKeyText(business, issued) },
        { purpose: 'reply', businessId: business.id },
      );
    }
  }

  /** The message's own record (messaging/statuses.ts), then the reminder it was, if any. */
  private async recordStatus(status: InboundStatus): Promise<void> {
    const { db, clock, prices } = this.deps;
    const reminderId = await applyStatus({ db, clock, prices }, status);
    const rank = DELIVERY_RANK[status.status];
    if (rank === undefined) return;
    // By the message's own record (a status may overtake the reminder's record of its send), else
    // by the provider's id on the reminder.
    const reminder =
      reminderId === null
        ? await repo.findByProviderMessageId(db, status.messageId)
        : await repo.findDeliveryOf(db, reminderId);
    if (!reminder) return;
    if ((DELIVERY_RANK[reminder.delivery_status ?? ''] ?? 0) >= rank) return;
    await repo.setDeliveryStatus(
      db,
      reminder.id,
      status.status,
      status.status === 'failed' ? `delivery_failed: ${status.error ?? 'unknown'}`.slice(0, 500) : null,
      clock.now().toISOString(),
    );
  }
}

/**
 * The announcement of a key issued over chat (PRODUCT part 16), to the business's own phone: the
 * key, or why none was issued, and the key revoked to keep at most MAX_ACTIVE_KEYS active.
 */
function chatKeyText(
  business: { name: string; language: string },
  issued: Awaited<ReturnType<BusinessService['issueChatKey']>>,
): string {
  const t = translator(business.language);
  if (issued.apiKey === null) {
    return t('chat.key_too_many', { business: business.name, count: issued.activeKeys });
  }
  return [
    t('chat.key_new', { business: business.name }),
    issued.apiKey,
    t('chat.key_secret'),
    ...(issued.revoked ? [t('chat.key_revoked', { max: MAX_ACTIVE_KEYS, prefix: issued.revoked.prefix })] : []),
  ].join('\n');
}
