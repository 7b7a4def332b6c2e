import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { ChatChannel } from './channel.js';
import { LogChannel } from './log.js';
import { WhatsAppChannel } from './whatsapp.js';

/** The adapter CHAT_CHANNEL names (config.ts already checked that whatsapp has what it needs). */
export function createChannel(config: Pick<Config, 'chatChannel' | 'whatsapp'>, logger?: Logger): ChatChannel {
  if (config.chatChannel === 'whatsapp') {
    const { apiBase, phoneNumberId, token } = config.whatsapp;
    if (!apiBase || !phoneNumberId || !token) {
      throw new Error('CHAT_CHANNEL=whatsapp needs WHATSAPP_API_BASE, WHATSAPP_PHONE_NUMBER_ID and WHATSAPP_TOKEN');
    }
    return new WhatsAppChannel({ apiBase, phoneNumberId, token });
  }
  return new LogChannel(logger);
}
