import { type Dispatcher, request } from 'undici';
import { ChannelError, type ChatChannel, type ChatMessage, type SendResult } from './channel.js';

export interface WhatsAppOptions {
  /** e.g. https://graph.facebook.com/v21.0 (no trailing slash) */
  apiBase: string;
  phoneNumberId: string;
  token: string;
  timeoutMs?: number;
  dispatcher?: Dispatcher;
}

/** Meta spells language codes with an underscore (pt_BR); businesses store BCP 47 (pt-BR). */
export function whatsappLanguage(language: string): string {
  return language.replace('-', '_');
}

/** The Cloud API request body for a message (https://developers.facebook.com/docs/whatsapp/cloud-api). */
export function whatsappBody(message: ChatMessage) {
  if (message.kind === 'text') {
    return {
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: message.to,
      type: 'text',
      text: { preview_url: false, body: message.text },
    };
  }
  return {
    messaging_product: 'whatsapp',
    recipient_type: 'individual',
    to: message.to,
    type: 'template',
    template: {
      name: message.template,
      language: { code: whatsappLanguage(message.language) },
      components: [
        {
          type: 'body',
          parameters: message.parameters.map((text) => ({ type: 'text', text })),
        },
        ...(message.copyCode === undefined
          ? []
          : [{ type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: message.copyCode }] }]),
      ],
    },
  };
}

function graphError(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } };
    if (body.error) return `code ${String(body.error.code)}: ${String(body.error.message)}`.slice(0, 300);
  } catch {
    // not JSON: fall through
  }
  return text.slice(0, 300);
}

/**
 * CHAT_CHANNEL=whatsapp: `POST {apiBase}/{phoneNumberId}/messages` with the bearer token. A network
 * error, a timeout or a non-2xx answer is a ChannelError, and the caller records nothing as sent.
 */
export class WhatsAppChannel implements ChatChannel {
  readonly name = 'whatsapp';
  readonly #url: string;

  constructor(private readonly options: WhatsAppOptions) {
    this.#url = `${options.apiBase}/${encodeURIComponent(options.phoneNumberId)}/messages`;
  }

  async send(message: ChatMessage): Promise<SendResult> {
    const timeoutMs = this.options.timeoutMs ?? 10_000;
    let status: number;
    let text: string;
    try {
      const response = await request(this.#url, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${this.options.token}`,
          'content-type': 'application/json',
          accept: 'application/json',
        },
        body: JSON.stringify(whatsappBody(message)),
        signal: AbortSignal.timeout(timeoutMs),
        ...(this.options.dispatcher && { dispatcher: this.options.dispatcher }),
      });
      status = response.statusCode;
      text = await response.body.text();
    } catch (error) {
      const timedOut = (error as Error).name === 'TimeoutError' || (error as Error).name === 'AbortError';
      throw new ChannelError(
        timedOut ? `WhatsApp did not answer within ${timeoutMs} ms` : 'WhatsApp could not be reached',
        (error as Error).message,
      );
    }
    if (status < 200 || status >= 300) {
      throw new ChannelError(`WhatsApp refused the message (HTTP ${status})`, graphError(text));
    }
    let messageId: unknown;
    try {
      messageId = (JSON.parse(text) as { messages?: { id?: unknown }[] }).messages?.[0]?.id;
    } catch {
      messageId = undefined;
    }
    if (typeof messageId !== 'string' || messageId === '') {
      throw new ChannelError('WhatsApp answered without a message id', text.slice(0, 300));
    }
    return { messageId };
  }
}
