import type { FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify';
import type { AppError } from '../errors.js';
import { compileSchema, validationError } from '../lib/validation.js';

/** Every request part through lib/validation.ts: bodies strict, query strings and paths coerced. */
export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
  compileSchema(schema, httpPart === 'body') as ReturnType<FastifySchemaCompiler<unknown>>;

/** Turns Fastify's validation failure into the one error envelope; a bad path id is a 404. */
export function validationToAppError(
  validation: FastifySchemaValidationError[],
  context: string | undefined,
): AppError {
  return validationError(validation, context);
}

/**
 * For a route whose body schema documents what the handler parses and checks itself (a signed raw
 * body checked before it is parsed; an import that names each bad row): the body is not validated
 * here, the query, path and headers are.
 */
export const documentedBodyCompiler: FastifySchemaCompiler<unknown> = (route) =>
  route.httpPart === 'body' ? () => true : validatorCompiler(route);
