import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthenticatedKey, BusinessService } from '../businesses/service.js';
import type { Config } from '../config.js';
import { errors } from '../errors.js';
import type { RateLimitStore } from '../rate-limit/port.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the authentication hook on every /v1 route. */
    auth: AuthenticatedKey;
  }
}

const WINDOW_MS = 60_000;

/**
 * SPEC part 5 and PRODUCT part 2: x-api-key -> 401 when missing or unknown (failed attempts are
 * also limited per client address), then the per-key rate limit with its headers, then 403 when
 * the plan has no API access. Rate-limit headers go on every authenticated response, errors
 * included.
 */
export function authenticationHook(deps: {
  config: Pick<Config, 'rateLimitPerMinute' | 'authFailuresPerMinute'>;
  businesses: BusinessService;
  rateLimits: RateLimitStore;
}) {
  const { config, businesses, rateLimits } = deps;
  return async function authenticate(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const header = request.headers['x-api-key'];
    const key = typeof header === 'string' ? header.trim() : '';
    const found = key === '' ? null : await businesses.authenticate(key);
    if (!found) {
      const failures = await rateLimits.hit(`authfail:${request.ip}`, WINDOW_MS);
      if (failures.count > config.authFailuresPerMinute) {
        throw errors.rateLimited('too many failed authentication attempts; retry after 60 seconds');
      }
      throw errors.unauthorized(key === '' ? 'missing API key (x-api-key header)' : 'invalid API key');
    }

    const limit = config.rateLimitPerMinute;
    const usage = await rateLimits.hit(`key:${found.keyId}`, WINDOW_MS);
    reply.header('ratelimit-limit', limit);
    reply.header('ratelimit-remaining', Math.max(0, limit - usage.count));
    reply.header('ratelimit-reset', Math.max(1, Math.ceil(usage.resetInMs / 1000)));
    if (usage.count > limit) {
      throw errors.rateLimited(`rate limit of ${limit} requests per minute exceeded; retry after 60 seconds`);
    }

    if (!businesses.hasApiAccess(found.business)) {
      throw errors.forbidden(
        found.business.plan === 'business'
          ? 'the business plan has expired; renew it to use the API'
          : 'the plan does not include API access; upgrade to the business plan',
      );
    }
    request.auth = found;
  };
}
