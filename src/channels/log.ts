import { appendFile, readFile, rename, stat } from 'node:fs/promises';
import type { Logger } from 'pino';
import { uuidv7 } from '../lib/ids.js';
import type { ChatChannel, ChatMessage, MessageContext, SendResult } from './channel.js';

export type RecordedMessage = ChatMessage & { messageId: string; at: string; businessId?: string | null };

const KEEP = 1000;
/** The file is moved aside (one older file kept) once it passes this size. */
const FILE_BYTES = 2 * 1024 * 1024;

/**
 * CHAT_CHANNEL=log (the default): sends nothing, records the message it would have sent and counts
 * it as sent. The record is kept in memory (the most recent 1000, for tests) and, when given a
 * file, appended to it as a JSON line, so that another process (`cli messages`) can show what
 * was "sent": sign-in codes, reminders, chat replies. The file is for local runs: it holds the
 * messages' text (a sign-in code, a freshly issued API key), created readable by its owner only.
 * The log line names the recipient and template only: bodies never belong in logs.
 */
export class LogChannel implements ChatChannel {
  readonly name = 'log';
  readonly #messages: RecordedMessage[] = [];

  constructor(
    private readonly logger?: Pick<Logger, 'info'>,
    private readonly now: () => Date = () => new Date(),
    private readonly file?: string,
  ) {}

  async send(message: ChatMessage, context?: MessageContext): Promise<SendResult> {
    const messageId = `log.${uuidv7()}`;
    const recorded: RecordedMessage = {
      ...message,
      messageId,
      at: this.now().toISOString(),
      businessId: context?.businessId ?? null,
    };
    this.#messages.push(recorded);
    if (this.#messages.length > KEEP) this.#messages.shift();
    if (this.file) await this.#append(this.file, recorded);
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

  async #append(file: string, recorded: RecordedMessage): Promise<void> {
    // Best effort: the record is a convenience, never a reason for a send to fail.
    try {
      await appendFile(file, `${JSON.stringify(recorded)}\n`, { mode: 0o600 });
      if ((await stat(file)).size > FILE_BYTES) await rename(file, `${file}.1`);
    } catch {
      // an unwritable DATA_DIR: the message is still "sent" and in memory
    }
  }

  /** The messages recorded so far, oldest first. */
  get messages(): readonly RecordedMessage[] {
    return this.#messages;
  }
}

/** The last `limit` messages a log channel appended to `file` (any process's), oldest first. */
export async function readRecordedMessages(file: string, limit: number): Promise<RecordedMessage[]> {
  const lines: string[] = [];
  for (const name of [file, `${file}.1`]) {
    let text: string;
    try {
      text = await readFile(name, 'utf8');
    } catch {
      continue;
    }
    lines.unshift(...text.split('\n').filter(Boolean));
    if (lines.length >= limit) break;
  }
  const out: RecordedMessage[] = [];
  for (const line of lines) {
    try {
      out.push(JSON.parse(line) as RecordedMessage);
    } catch {
      // a line cut short by a crash mid-write
    }
  }
  return out.slice(-limit);
}
