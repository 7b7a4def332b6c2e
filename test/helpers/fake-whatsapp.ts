import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GraphRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: any;
  /** the wamid the fake answered with, once it answered */
  messageId?: string;
}

/**
 * A local stand-in for the WhatsApp Cloud API (Graph API): records every request and answers as
 * Meta does ({"messages":[{"id":"wamid..."}]}), or fails/hangs when told to.
 */
export class FakeGraphApi {
  readonly requests: GraphRequest[] = [];
  /** the next answers; when empty, 200 with a new message id */
  mode: 'ok' | 'fail' | 'hang' = 'ok';
  failStatus = 500;
  /** delay before answering, to make concurrent senders overlap */
  delayMs = 0;
  /** the account's message templates (GET/POST {waba}/message_templates), listed `templatePageSize` a page */
  readonly templates: { name: string; language: string; status: string; category: string }[] = [];
  templatePageSize = 2;
  /** template names whose creation Meta refuses */
  readonly refuseTemplates = new Set<string>();
  #server = http.createServer((req, res) => this.#handle(req, res));
  #counter = 0;
  #hanging: http.ServerResponse[] = [];

  async start(): Promise<string> {
    this.#server.listen(0, '127.0.0.1');
    await once(this.#server, 'listening');
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    for (const res of this.#hanging) res.destroy();
    this.#server.closeAllConnections();
    await new Promise((resolve) => this.#server.close(resolve));
  }

  #templates(req: http.IncomingMessage, res: http.ServerResponse, body: Record<string, unknown>) {
    const json = (status: number, value: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    if (this.mode === 'fail') return json(this.failStatus, { error: { message: 'Service unavailable', code: 2 } });
    const url = new URL(req.url ?? '/', 'http://fake');
    if (req.method === 'GET') {
      const after = Number(url.searchParams.get('after') ?? 0);
      const page = this.templates.slice(after, after + this.templatePageSize);
      const next = after + this.templatePageSize;
      url.searchParams.set('after', String(next));
      return json(200, {
        data: page.map((t, i) => ({ ...t, id: String(after + i) })),
        paging: {
          cursors: {},
          ...(next < this.templates.length && { next: `http://${req.headers.host}${url.pathname}${url.search}` }),
        },
      });
    }
    const name = String(body.name);
    if (this.refuseTemplates.has(name)) {
      return json(400, {
        error: { message: 'Invalid parameter', error_user_msg: `${name}: body not allowed`, code: 100 },
      });
    }
    this.templates.push({ name, language: String(body.language), status: 'PENDING', category: String(body.category) });
    return json(200, { id: String(this.templates.length), status: 'PENDING', category: body.category });
  }

  #handle(req: http.IncomingMessage, res: http.ServerResponse) {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
      const recorded: GraphRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
      this.requests.push(recorded);
      if ((req.url ?? '').includes('/message_templates')) {
        this.#templates(req, res, body as Record<string, unknown>);
        return;
      }
      const answer = () => {
        if (this.mode === 'hang') {
          this.#hanging.push(res);
          return;
        }
        if (this.mode === 'fail') {
          res.writeHead(this.failStatus, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: { message: 'Invalid parameter', type: 'OAuthException', code: 100 } }));
          return;
        }
        this.#counter += 1;
        recorded.messageId = `wamid.fake${this.#counter}`;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            messaging_product: 'whatsapp',
            contacts: [{ input: (body as { to?: string }).to, wa_id: (body as { to?: string }).to }],
            messages: [{ id: `wamid.fake${this.#counter}` }],
          }),
        );
      };
      if (this.delayMs > 0) setTimeout(answer, this.delayMs);
      else answer();
    });
  }
}
