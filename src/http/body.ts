import type { FastifyRequest } from 'fastify';

/** PRODUCT part 2: an action whose body is optional takes an absent body as {}. */
export async function absentBodyIsEmptyObject(request: FastifyRequest) {
  if (request.body === undefined || request.body === null) request.body = {};
}
