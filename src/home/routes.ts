import type { App } from '../http/types.js';
import { HOME_CONTENT_SECURITY_POLICY, homePage } from './page.js';

export async function homeRoutes(app: App) {
  app.get('/', { schema: { hide: true } }, async (request, reply) =>
    reply
      .headers({
        'content-security-policy': HOME_CONTENT_SECURITY_POLICY,
        'x-content-type-options': 'nosniff',
        'x-frame-options': 'DENY',
        'referrer-policy': 'no-referrer',
        'cache-control': 'no-cache',
        vary: 'Accept-Language',
      })
      .type('text/html; charset=utf-8')
      .send(homePage(request.headers['accept-language'])),
  );
}
