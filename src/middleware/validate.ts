import type { RequestHandler } from 'express';
import type { z } from 'zod';
import { ValidationFailed } from '../lib/errors.ts';
import { findNulCharacter, parseOrThrow } from '../lib/validation.ts';

/**
 * Parses the parts of a request with zod and keeps the results in `res.locals`
 * (`body`, `query`, `params`); Express 5's `req.query` is read-only. Failures are the
 * contract's 400 validation error.
 */
export function validate(schemas: { body?: z.ZodType; query?: z.ZodType; params?: z.ZodType }): RequestHandler {
  return (req, res, next) => {
    if (schemas.body) res.locals.body = parseOrThrow(schemas.body, req.body ?? {});
    if (schemas.query) res.locals.query = parseOrThrow(schemas.query, req.query);
    if (schemas.params) res.locals.params = parseOrThrow(schemas.params, req.params);
    next();
  };
}

/**
 * Every path, body and query is checked once for NUL characters: Postgres refuses them in text,
 * so they would otherwise surface as a 500 from whichever query stores or compares them.
 */
export const rejectNulCharacters: RequestHandler = (req, _res, next) => {
  // Route parameters come from the path, decoded later by the router.
  if (/%00/.test(req.path)) {
    throw new ValidationFailed({ fieldErrors: {}, formErrors: ['path: Must not contain NUL characters'] });
  }
  for (const [where, value] of [['body', req.body], ['query', req.query]] as const) {
    const path = findNulCharacter(value);
    if (path === undefined) continue;
    const message = 'Must not contain NUL characters';
    throw new ValidationFailed(path ? { fieldErrors: { [path]: [message] }, formErrors: [] } : { fieldErrors: {}, formErrors: [`${where}: ${message}`] });
  }
  next();
};
