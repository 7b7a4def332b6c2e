import type { InboundMessage, InboundStatus } from './channel.js';

/**
 * Meta's webhook payload (object "whatsapp_business_account"): entry[].changes[].value holds
 * messages[] (from, id, text.body, or button.text for a quick-reply button, context.id when it
 * answers one of ours) and statuses[] (id, status, errors[].code, pricing.category and billable). Anything else (other fields, media messages) is ignored: Meta adds fields over
 * time and the webhook must keep answering 200.
 */
export function parseWhatsAppPayload(payload: unknown): { messages: InboundMessage[]; statuses: InboundStatus[] } {
  const messages: InboundMessage[] = [];
  const statuses: InboundStatus[] = [];
  for (const entry of list(field(payload, 'entry'))) {
    for (const change of list(field(entry, 'changes'))) {
      const value = field(change, 'value');
      for (const m of list(field(value, 'messages'))) {
        const id = text(field(m, 'id'));
        const from = text(field(m, 'from'))?.replace(/\D/g, '');
        const body = text(field(field(m, 'text'), 'body')) ?? text(field(field(m, 'button'), 'text'));
        const contextId = text(field(field(m, 'context'), 'id'))?.replace(/\0/g, '');
        if (id && from && body !== undefined) messages.push({ id, from, text: body, ...(contextId && { contextId }) });
      }
      for (const s of list(field(value, 'statuses'))) {
        const messageId = text(field(s, 'id'));
        const status = text(field(s, 'status'));
        const firstError = list(field(s, 'errors'))[0];
        const error = text(field(firstError, 'title')) ?? text(field(firstError, 'message')) ?? null;
        const code = field(firstError, 'code');
        const errorCode = typeof code === 'number' && Number.isSafeInteger(code) ? code : null;
        const pricing = field(s, 'pricing');
        const category = text(field(pricing, 'category')) ?? '';
        const billable = field(pricing, 'billable');
        if (messageId && status) {
          statuses.push({
            messageId,
            status,
            error,
            errorCode,
            category: /^[a-z_]{1,40}$/.test(category) ? category : null,
            billable: typeof billable === 'boolean' ? billable : null,
          });
        }
      }
    }
  }
  return { messages, statuses };
}

function field(value: unknown, name: string): unknown {
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[name] : undefined;
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
