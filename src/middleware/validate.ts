import type { RequestHandler } from 'express';
import type { z } from 'zod';
import { parseOrThrow } from '../lib/validation.ts';

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
