import path from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { ChatChannel } from './channel.js';
import { LogChannel } from './log.js';
import { WhatsAppChannel } from './whatsapp.js';

/** Where CHAT_CHANNEL=log appends what it would have sent (read by `cli messages`). */
export function chatLogFile(config: Pick<Config, 'dataDir'>): string {
  return path.join(config.dataDir, 'chat-log.jsonl');
}

/** The adapter CHAT_CHANNEL names (config.ts already checked that whatsapp has what it needs). */
export function createChannel(
  config: Pick<Config, 'chatChannel' | 'whatsapp' | 'dataDir'>,
  logger?: Logger,
): ChatChannel {
  if (config.chatChannel === 'whatsapp') {
    const { apiBase, phoneNumberId, token } = config.whatsapp;
    if (!apiBase || !phoneNumberId || !token) {
      throw new Error('CHAT_CHANNEL=whatsapp needs WHATSAPP_API_BASE, WHATSAPP_PHONE_NUMBER_ID and WHATSAPP_TOKEN');
    }
    return new WhatsAppChannel({ apiBase, phoneNumberId, token });
  }
  return new LogChannel(logger, undefined, chatLogFile(config));
}
