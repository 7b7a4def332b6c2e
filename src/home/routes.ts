import type { App } from '../http/types.js';
import { HOME_CONTENT_SECURITY_POLICY, HOME_PAGE } from './page.js';

export async function homeRoutes(app: App) {
  app.get('/', { schema: { hide: true } }, async (_request, reply) =>
    reply
      .headers({
        'content-security-policy': HOME_CONTENT_SECURITY_POLICY,
        'x-content-type-options': 'nosniff',
        'x-frame-options': 'DENY',
        'referrer-policy': 'no-referrer',
        'cache-control': 'no-cache',
      })
      .type('text/html; charset=utf-8')
      .send(HOME_PAGE),
  );
}
