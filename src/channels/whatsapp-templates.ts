import { type Dispatcher, request } from 'undici';
import { ChannelError } from './channel.js';

/** A message template as WhatsApp Manager holds it. */
export interface RemoteTemplate {
  name: string;
  language: string;
  status: string;
}

/** What creating a template sends: Meta's component list, built by the caller. */
export interface NewTemplate {
  name: string;
  language: string;
  category: 'UTILITY' | 'AUTHENTICATION';
  components: unknown[];
}

export interface TemplatesApi {
  list(): Promise<RemoteTemplate[]>;
  create(template: NewTemplate): Promise<{ id: string; status: string }>;
}

/** Pages followed at most: 100 templates a page, far more than an account holds. */
const MAX_PAGES = 50;

/**
 * The Graph API's template management for one WhatsApp Business Account:
 * `GET/POST {apiBase}/{businessAccountId}/message_templates` with the bearer token. Failures are
 * ChannelErrors carrying Meta's own message.
 */
export class GraphTemplatesApi implements TemplatesApi {
  readonly #url: string;
  constructor(
    private readonly options: {
      apiBase: string;
      businessAccountId: string;
      token: string;
      timeoutMs?: number;
      dispatcher?: Dispatcher;
    },
  ) {
    this.#url = `${options.apiBase}/${encodeURIComponent(options.businessAccountId)}/message_templates`;
  }

  async list(): Promise<RemoteTemplate[]> {
    const found: RemoteTemplate[] = [];
    let url: string | undefined = `${this.#url}?fields=name,language,status&limit=100`;
    for (let page = 0; url !== undefined && page < MAX_PAGES; page++) {
      const body = (await this.#call('GET', url)) as {
        data?: { name?: unknown; language?: unknown; status?: unknown }[];
        paging?: { next?: unknown };
      };
      for (const t of Array.isArray(body.data) ? body.data : []) {
        if (typeof t.name === 'string' && typeof t.language === 'string') {
          found.push({ name: t.name, language: t.language, status: typeof t.status === 'string' ? t.status : '' });
        }
      }
      url = typeof body.paging?.next === 'string' ? body.paging.next : undefined;
    }
    return found;
  }

  async create(template: NewTemplate): Promise<{ id: string; status: string }> {
    const body = (await this.#call('POST', this.#url, template)) as { id?: unknown; status?: unknown };
    return { id: String(body.id ?? ''), status: typeof body.status === 'string' ? body.status : '' };
  }

  async #call(method: 'GET' | 'POST', url: string, body?: unknown): Promise<unknown> {
    const timeoutMs = this.options.timeoutMs ?? 15_000;
    let status: number;
    let text: string;
    try {
      const response = await request(url, {
        method,
        headers: {
          authorization: `Bearer ${this.options.token}`,
          accept: 'application/json',
          ...(body !== undefined && { 'content-type': 'application/json' }),
        },
        ...(body !== undefined && { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(timeoutMs),
        ...(this.options.dispatcher && { dispatcher: this.options.dispatcher }),
      });
      status = response.statusCode;
      text = await response.body.text();
    } catch (error) {
      throw new ChannelError('the Graph API could not be reached', (error as Error).message);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (status < 200 || status >= 300) {
      const error = (parsed as { error?: { message?: unknown; error_user_msg?: unknown } } | undefined)?.error;
      const said = error?.error_user_msg ?? error?.message;
      throw new ChannelError(
        `the Graph API refused (HTTP ${status})${typeof said === 'string' ? `: ${said.slice(0, 300)}` : ''}`,
        text.slice(0, 300),
      );
    }
    if (parsed === undefined)
      throw new ChannelError('the Graph API answered something that is not JSON', text.slice(0, 300));
    return parsed;
  }
}
