import type { RequestHandler, Response } from 'express';
import type { z } from 'zod';
import { NotFound, ValidationFailed } from '../lib/errors.ts';
import {
  findInputProblem,
  jsonNestsDeeperThan,
  MAX_INPUT_DEPTH,
  parseOrThrow,
  textProblem,
  type InputProblem,
  type TextProblem,
} from '../lib/validation.ts';
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

const textProblemMessages: Record<TextProblem, string> = {
  nul: messages.noNulCharacters,
  notWellFormed: messages.notWellFormedUnicode,
};

/** The 400 for what `findInputProblem` found in `where` (path, body or query). */
function inputProblemError(where: string, problem: InputProblem): ValidationFailed {
  const message = problem.kind === 'tooDeep' ? messages.nestedTooDeep(problem.maxDepth) : textProblemMessages[problem.kind];
  // A problem with a field is that field's error; one with the whole part is a form error.
  if (problem.kind !== 'tooDeep' && problem.path)
    return new ValidationFailed({ fieldErrors: { [problem.path]: [message] }, formErrors: [] });
  return new ValidationFailed({ fieldErrors: {}, formErrors: [`${where}: ${message}`] });
}

/**
 * `express.json`'s `verify` hook: a UTF-8 body nested deeper than the limit is refused before
 * JSON.parse spends time on it (the same 400 the parsed-body check gives; other charsets are
 * left to that check).
 */
export function refuseDeepJson(_req: unknown, _res: unknown, body: Buffer, encoding: string): void {
  if (/^utf-?8$/i.test(encoding) && jsonNestsDeeperThan(body))
    throw inputProblemError('body', { kind: 'tooDeep', maxDepth: MAX_INPUT_DEPTH });
}

/**
 * Every request's path, body (once parsed) and query are checked once, before any route, for text
 * that cannot be stored (NUL characters, which Postgres text refuses, and lone surrogates,
 * which jsonb refuses and text turns into U+FFFD) and for bodies nested too deeply; these
 * would otherwise surface as a 500 from whichever query stores or compares them, or cost
 * the event loop time on any path. The walk is linear (see `findInputProblem`).
 */
export const rejectUnstorableInput: RequestHandler = (req, _res, next) => {
  // The router decodes route parameters later; a malformed escape here is the same 400
  // (a URIError) on every path, routed or not.
  const pathProblem = textProblem(decodeURIComponent(req.path));
  if (pathProblem) throw inputProblemError('path', { kind: pathProblem, path: '' });
  for (const [where, value] of [
    ['body', req.body],
    ['query', req.query],
  ] as const) {
    const problem = findInputProblem(value);
    if (problem) throw inputProblemError(where, problem);
  }
  next();
};
