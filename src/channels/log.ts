import type { Logger } from 'pino';
import { uuidv7 } from '../lib/ids.js';
import type { ChatChannel, ChatMessage, SendResult } from './channel.js';

export type RecordedMessage = ChatMessage & { messageId: string; at: string };

const KEEP = 1000;

/**
 * CHAT_CHANNEL=log (the default, PRODUCT part 6): sends nothing, records the message it would have
 * sent and counts it as sent. The record is kept in memory (the most recent 1000, for tests and
 * local runs) and a log line names the recipient and template only: bodies can hold a pay link or a
 * freshly issued API key, which never belong in logs.
 */
export class LogChannel implements ChatChannel {
  readonly name = 'log';
  readonly #messages: RecordedMessage[] = [];

  constructor(
    private readonly logger?: Pick<Logger, 'info'>,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async send(message: ChatMessage): Promise<SendResult> {
    const messageId = `log.${uuidv7()}`;
    this.#messages.push({ ...message, messageId, at: this.now().toISOString() });
    if (this.#messages.length > KEEP) this.#messages.shift();
    this.logger?.info(
      {
        channel: 'log',
        messageId,
        to: `…${message.to.slice(-4)}`,
        kind: message.kind,
        template: message.kind === 'template' ? message.template : undefined,
      },
      'chat message recorded (CHAT_CHANNEL=log sends nothing)',
    );
    return { messageId };
  }

  /** The messages recorded so far, oldest first. */
  get messages(): readonly RecordedMessage[] {
    return this.#messages;
  }
}
