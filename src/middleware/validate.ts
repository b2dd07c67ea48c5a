import type { RequestHandler, Response } from 'express';
import type { z } from 'zod';
import { NotFound, ValidationFailed } from '../lib/errors.ts';
import { findNulCharacter, parseOrThrow } from '../lib/validation.ts';
import { messages } from '../messages.ts';

export interface RequestSchemas {
  params?: z.ZodType;
  query?: z.ZodType;
  /** Named as the client sends them (`Idempotency-Key`); Node has them lower-cased. */
  headers?: z.ZodObject;
  body?: z.ZodType;
}

/** What `validate` parsed, kept in `res.locals` (Express 5's `req.query` is read-only). */
export interface ValidatedInput {
  params: unknown;
  query: unknown;
  headers: unknown;
  body: unknown;
}

/** The request parts the validate middleware parsed for this request. */
export function validated(res: Response): ValidatedInput {
  return res.locals as ValidatedInput;
}

/**
 * Parses the parts of a request with zod, in order: path (a failure is a 404 with the
 * parameter's message: a path that names nothing is not found), query, headers, body
 * (each failure the contract's 400 validation error). A missing body is parsed as `{}`,
 * so its required fields are reported.
 */
export function validate(schemas: RequestSchemas): RequestHandler {
  return (req, res, next) => {
    const input = res.locals as ValidatedInput;
    if (schemas.params) {
      const parsed = schemas.params.safeParse(req.params);
      if (!parsed.success) throw new NotFound(parsed.error.issues[0]?.message ?? messages.notFound);
      input.params = parsed.data;
    }
    if (schemas.query) input.query = parseOrThrow(schemas.query, req.query);
    if (schemas.headers) input.headers = parseOrThrow(schemas.headers, headerValues(req.headers, schemas.headers));
    if (schemas.body) input.body = parseOrThrow(schemas.body, req.body ?? {});
    next();
  };
}

/** The request's headers under the names the schema declares (Node lower-cases them). */
function headerValues(headers: Record<string, unknown>, schema: z.ZodObject): Record<string, unknown> {
  return Object.fromEntries(Object.keys(schema.shape).map((name) => [name, headers[name.toLowerCase()]]));
}

/**
 * Every path, body and query is checked once for NUL characters: Postgres refuses them in text,
 * so they would otherwise surface as a 500 from whichever query stores or compares them.
 */
export const rejectNulCharacters: RequestHandler = (req, _res, next) => {
  // Route parameters come from the path, decoded later by the router.
  if (/%00/.test(req.path)) {
    throw new ValidationFailed({ fieldErrors: {}, formErrors: [`path: ${messages.noNulCharacters}`] });
  }
  for (const [where, value] of [['body', req.body], ['query', req.query]] as const) {
    const path = findNulCharacter(value);
    if (path === undefined) continue;
    throw new ValidationFailed(path ? { fieldErrors: { [path]: [messages.noNulCharacters] }, formErrors: [] } : { fieldErrors: {}, formErrors: [`${where}: ${messages.noNulCharacters}`] });
  }
  next();
};
