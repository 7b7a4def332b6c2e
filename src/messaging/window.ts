import type { ChatMessage, MessageContext } from '../channels/channel.js';
import type { Db } from '../db/schema.js';
import type { Clock } from '../lib/clock.js';
import type { PriceTable } from './prices.js';
import { findPhone } from './repository.js';
import { findTemplate, renderBody } from './templates.js';

/** WhatsApp's customer-service window: free-form messages are allowed this long after the person wrote. */
export const SERVICE_WINDOW_MS = 24 * 60 * 60 * 1000;

export interface MessageShaper {
  shape(message: ChatMessage, context: MessageContext): Promise<ChatMessage>;
}

/**
 * A reminder to a buyer who wrote to the number within the last 24 hours goes as free text (a
 * service message) when that costs less than its template's category; otherwise, and whenever
 * WhatsApp said the window was closed (131047 closes it here until the buyer writes again), the
 * template. Authentication templates (sign-in codes) always go as templates.
 */
export class ServiceWindow implements MessageShaper {
  constructor(private readonly deps: { db: Db; clock: Clock; prices: PriceTable }) {}

  async shape(message: ChatMessage, context: MessageContext): Promise<ChatMessage> {
    if (message.kind !== 'template' || context.purpose !== 'reminder') return message;
    const entry = findTemplate(message.template, message.language);
    if (entry?.category !== 'utility') return message;
    if (this.deps.prices.service >= this.deps.prices[entry.category]) return message;
    const phone = await findPhone(this.deps.db, message.to);
    const wrote = phone?.last_inbound_at ? Date.parse(phone.last_inbound_at) : null;
    if (wrote === null || this.deps.clock.now().getTime() - wrote >= SERVICE_WINDOW_MS) return message;
    return { kind: 'text', to: message.to, text: renderBody(entry, message.parameters) };
  }
}
