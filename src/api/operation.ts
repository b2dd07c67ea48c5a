import type { Request, Response } from 'express';
import type { RateLimitRule } from '../revisions.ts';
import { z } from 'zod';
import type { AppContext } from '../app-context.ts';
import { Unauthorized } from '../lib/errors.ts';
import { messages } from '../messages.ts';
import type { RevisionProfile } from '../revisions.ts';

/**
 * One declaration per API operation: its route (method, path), who may call it (auth), the
 * schemas of its path, query, headers and body, every answer it can give, and its handler.
 * Routes are mounted from these (src/routes/api.ts: auth middleware from `auth`, the validate
 * middleware from the schemas), and the OpenAPI document, the /docs pages and the
 * agent-context are generated from them, so what is documented is what is served.
 */

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';
export type AuthMode = 'public' | 'key|session' | 'session';

export interface Example {
  summary: string;
  value: unknown;
}

/** Response headers the document describes (zod, converted like every other schema); sent every time unless `optional`. */
export const responseHeaders = {
  'X-RateLimit-Remaining': { description: 'Submissions left in the current window (0 or 1).', schema: z.int().min(0).max(1) },
  'X-RateLimit-Reset': { description: 'Unix time in seconds when the window resets.', schema: z.int().min(0) },
  'Retry-After': { description: 'Seconds to wait before retrying.', schema: z.int().min(1) },
  Location: { description: 'Address of the created resource.', schema: z.string() },
  'Idempotent-Replayed': {
    description: '`true` when this is the stored answer to an earlier request with the same Idempotency-Key.',
    schema: z.literal('true'),
    optional: true,
  },
  Deprecation: { description: 'This path is kept for revision-2 clients.', schema: z.literal('true') },
  Link: { description: 'The successor path.', schema: z.string() },
  ETag: { description: 'Validator for `If-None-Match`.', schema: z.string() },
  'Cache-Control': { description: 'How long the answer may be cached.', schema: z.string() },
  RateLimit: {
    description: 'The per-address read limit left, as the IETF RateLimit draft gives it: `"reads"; r=<left>; t=<seconds to reset>`.',
    schema: z.string(),
  },
  'RateLimit-Policy': {
    description: 'The per-address read limit: `"reads"; q=<requests>; w=<window seconds>` (and `"exports"` for exports).',
    schema: z.string(),
  },
  'Cross-Origin-Resource-Policy': { description: 'Other sites may embed the answer (`cross-origin`).', schema: z.literal('cross-origin') },
  'Access-Control-Allow-Origin': { description: 'Any origin may read the answer (`*`).', schema: z.literal('*') },
  'X-Content-Type-Options': { description: 'Browsers must not guess another type (`nosniff`).', schema: z.literal('nosniff') },
} satisfies Record<string, { description: string; schema: z.ZodType; optional?: true }>;
export type HeaderName = keyof typeof responseHeaders;

export interface ResponseSpec {
  description: string;
  /** Name of the JSON body's response component; none for 204 and 304. */
  body?: string;
  /** The same answer in other media types (exports). */
  alternatives?: { mediaType: string; description: string }[];
  headers?: HeaderName[];
  examples?: Record<string, Example>;
  /** Given by app-wide middleware before any route runs, so a deprecated alias cannot mark it. */
  beforeRoutes?: true;
}

/** What a handler is given: the request parts the validate middleware parsed, and the app. */
export interface ApiCall<Params = unknown, Query = unknown, Headers = unknown, Body = unknown> {
  req: Request;
  res: Response;
  app: AppContext;
  params: Params;
  query: Query;
  headers: Headers;
  body: Body;
  /** The caller's user id, or null for anonymous callers (fills `myEmoji` on public reads). */
  viewerId: string | null;
  /** The caller's user id; operations with `auth` always have one. */
  userId(): string;
}

export type Route = `${'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'} /api/${string}`;

interface DeclaredFields {
  operationId: string;
  summary: string;
  description?: string;
  auth: AuthMode;
  /**
   * A JSON body limit above the app's 1 MB (`'16 MB'`): src/middleware/body-parsing.ts parses
   * this route's body with it, and its 413 is documented from it.
   */
  bodyLimit?: `${number} MB`;
  /**
   * The request is `multipart/form-data` with one file in this field (an image upload): the
   * route mounting parses it (src/web/image-upload.ts) after the auth check, and the
   * document describes that body instead of a JSON one.
   */
  upload?: { field: string; description: string /** Another field the file may come in instead. */; alsoField?: string };
  /**
   * The body is raw bytes of any type, at most `maxBytes` (a storage upload): src/app.ts reads
   * it into a Buffer before the JSON parser, and the document describes an octet stream.
   */
  rawBody?: {
    maxBytes: number;
    description: string;
    /**
     * Whether the request may send its bytes at all (a public route's capability, e.g. a
     * signed URL): checked before a byte is read, so an unsigned upload is answered unread.
     */
    admits?: (req: Request, app: AppContext) => boolean;
  };
  responses: Record<number, ResponseSpec>;
  /**
   * The public answer depends on nothing but approved runs and the catalogue (what the read
   * index follows), never on who asks: its anonymous answers may be kept until the next change
   * (src/middleware/read-cache.ts).
   */
  followsReadIndex?: true;
}

export interface ApiOperation extends DeclaredFields {
  method: HttpMethod;
  /** Express path, /api included (`/api/setups/:id`). */
  path: string;
  /** The resource's tag. */
  tags: string[];
  /** Set on the copy of an operation that a revision-3 deployment keeps at a revision-2 path. */
  aliasOf?: string;
  /** On such a copy: the path its `Link: <successor>; rel="successor-version"` names. */
  successor?: string;
  pathParams?: z.ZodObject;
  query?: { schema: z.ZodType; descriptions: Record<string, string> };
  headers?: z.ZodObject;
  /** The JSON body: its schema (validated before the handler runs) under a component name. */
  body?: { component: string; schema: z.ZodType; examples?: Record<string, Example> };
  handle(call: ApiCall): Promise<void> | void;
}

interface OperationSpec<P extends z.ZodObject, Q extends z.ZodType, H extends z.ZodObject, B extends z.ZodType> extends DeclaredFields {
  /** Method and Express path: `GET /api/setups/:id`. */
  route: Route;
  pathParams?: P;
  query?: { schema: Q; descriptions: Record<string, string> };
  headers?: H;
  body?: { component: string; schema: B; examples?: Record<string, Example> };
  handle(call: ApiCall<z.output<P>, z.output<Q>, z.output<H>, z.output<B>>): Promise<void> | void;
}

/**
 * Declares an operation; the handler's `params`, `query`, `headers` and `body` are typed from
 * the schemas. Its tag is its resource's (src/api/index.ts sets it), and the answers its
 * `auth` implies (401, and 403 for a key on a session-only path or a missing CSRF token)
 * are documented from the auth mode unless the declaration gives its own.
 */
export function operation<
  // biome-ignore lint/complexity/noBannedTypes: ZodObject<{}> is the type of z.object({}), no parameters
  P extends z.ZodObject = z.ZodObject<{}>,
  Q extends z.ZodType = z.ZodUndefined,
  // biome-ignore lint/complexity/noBannedTypes: ZodObject<{}> is the type of z.object({}), no headers
  H extends z.ZodObject = z.ZodObject<{}>,
  B extends z.ZodType = z.ZodUndefined,
>({ route, ...spec }: OperationSpec<P, Q, H, B>): ApiOperation {
  const [verb, path] = route.split(' ') as [string, string];
  const method = verb.toLowerCase() as HttpMethod;
  const declared = spec as unknown as Omit<ApiOperation, 'method' | 'path' | 'tags'>;
  return {
    ...declared,
    method,
    path,
    tags: [],
    responses: {
      ...readLimitResponses(method),
      ...authResponses(spec.auth, method),
      ...bodyLimitResponses(spec.bodyLimit ?? (spec.rawBody ? `${Math.round(spec.rawBody.maxBytes / 1024 / 1024)} MB` : undefined)),
      ...declared.responses,
    },
  };
}

/** Every GET counts against the per-address read limit (src/middleware/read-limits.ts). */
function readLimitResponses(method: HttpMethod): Record<number, ResponseSpec> {
  if (method !== 'get') return {};
  return {
    429: {
      description:
        'Too many requests from your address: a generous per-address limit on reads (exports have a tighter one). Wait `Retry-After` seconds.',
      body: 'TooManyRequests',
      headers: ['Retry-After', 'RateLimit', 'RateLimit-Policy'],
      examples: { reads: example('Read limit', { error: messages.tooManyReads(42), retryAfterMs: 41_250 }) },
      beforeRoutes: true,
    },
  };
}

/** The 413 of a body over the operation's own limit (the parser answers before any route). */
function bodyLimitResponses(limit: DeclaredFields['bodyLimit']): Record<number, ResponseSpec> {
  if (!limit) return {};
  return {
    413: {
      description: `The body is larger than ${limit}.`,
      body: 'Error',
      examples: { tooLarge: example('Too large', errorBody(messages.payloadTooLargeOf(limit))) },
      beforeRoutes: true,
    },
  };
}

/** What the auth middleware answers before the handler runs, by auth mode. */
function authResponses(auth: AuthMode, method: HttpMethod): Record<number, ResponseSpec> {
  if (auth === 'public') return {};
  // Unsafe methods made with the session cookie need its CSRF token.
  const unsafe = method !== 'get';
  if (auth === 'session') return { 401: unauthorized(), 403: sessionOnlyForbidden(unsafe) };
  return unsafe ? { 401: unauthorized(), 403: forbiddenCsrf } : { 401: unauthorized() };
}

/** The calls of one request: built by the route mounting from what the middleware parsed. */
export function apiCall(
  req: Request,
  res: Response,
  app: AppContext,
  input: { params?: unknown; query?: unknown; headers?: unknown; body?: unknown },
): ApiCall {
  const viewerId = req.actor?.user.id ?? null;
  return {
    req,
    res,
    app,
    params: input.params,
    query: input.query,
    headers: input.headers,
    body: input.body,
    viewerId,
    userId() {
      if (!viewerId) throw new Unauthorized();
      return viewerId;
    },
  };
}

/**
 * The API of one resource: its tags, the response bodies it names, and its operations,
 * all per revision. src/api/index.ts lists the resources.
 */
export interface ApiResource {
  /** The tag every operation of the resource is listed under (none for the shared bodies). */
  tag?: { name: string; description: string };
  /** Response body schemas by component name (request bodies come from the operations). */
  responses(profile: RevisionProfile): Record<string, z.ZodType>;
  operations(profile: RevisionProfile): ApiOperation[];
}

// ---------------------------------------------------------------------------
// Answers many operations share
// ---------------------------------------------------------------------------

export const example = (summary: string, value: unknown): Example => ({ summary, value });
export const errorBody = (error: string) => ({ error });

const validationExample = (fieldErrors: Record<string, string[]>) =>
  example('Validation failed', { error: 'Validation failed', details: { fieldErrors, formErrors: [] } });

/** A 400 example of a request refused as a whole (an account cap): its message in `formErrors`. */
export const formErrorExample = (summary: string, message: string) =>
  example(summary, { error: 'Validation failed', details: { fieldErrors: {}, formErrors: [message] } });

export function badRequest(description: string, fieldErrors: Record<string, string[]>, more: Record<string, Example> = {}): ResponseSpec {
  return { description, body: 'BadRequest', examples: { validation: validationExample(fieldErrors), ...more } };
}

/** 400 of a read whose query string has an unknown parameter or a value out of bounds. */
export const invalidQuery = (fieldErrors: Record<string, string[]>): ResponseSpec =>
  badRequest('A parameter is unknown or out of bounds.', fieldErrors);

export const malformedJson = example('Body is not JSON', errorBody(messages.malformedJson));

export const unauthorized = (extra: Record<string, Example> = {}): ResponseSpec => ({
  description: 'Credentials missing, expired, revoked or invalid.',
  body: 'Error',
  examples: { missing: example('No or bad credentials', errorBody(messages.authenticationRequired)), ...extra },
});

export const csrfExample = example('Session request without the CSRF token', errorBody(messages.invalidCsrf));
export const forbiddenCsrf: ResponseSpec = {
  description: 'A session-authenticated request without the session CSRF token (`X-CSRF-Token`).',
  body: 'Error',
  examples: { csrf: csrfExample },
};

/** 403 of a session-only operation: a Bearer key was used, or (for unsafe methods) the CSRF token is missing. */
export function sessionOnlyForbidden(unsafe: boolean): ResponseSpec {
  const key = example('Bearer key on a session-only path', errorBody(messages.sessionOnly));
  return unsafe
    ? {
        description: 'A Bearer key was used (this endpoint needs a browser session), or the CSRF token is missing.',
        body: 'Error',
        examples: { key, csrf: csrfExample },
      }
    : { description: 'A Bearer key was used: this endpoint needs a browser session.', body: 'Error', examples: { key } };
}

export const notFound = (what: string, message: string): ResponseSpec => ({
  description: `${what} not found.`,
  body: 'Error',
  examples: { notFound: example(`Unknown ${what.toLowerCase()}`, errorBody(message)) },
});

/** The hub's answer for a model id it does not have (the operation says when, and may add its own 404s). */
export const unknownModelExample = example(
  'Unknown model',
  errorBody(messages.hubNotFound('someorg/No-Such-Model', 'https://huggingface.co')),
);

/** 404 for a model id the hub does not have. */
export const hubNotFound = (description: string, more: Record<string, Example> = {}): ResponseSpec => ({
  description,
  body: 'Error',
  examples: { ...more, model: unknownModelExample },
});

/** 503 when the model hub could not answer; `nothingDone` says what was left undone. */
export const hubUnavailable = (nothingDone: string): ResponseSpec => ({
  description: `The model hub could not answer${nothingDone}. Retry after \`Retry-After\` seconds.`,
  body: 'Error',
  headers: ['Retry-After'],
  examples: { hub: example('Hub unavailable', errorBody(messages.hubUnavailable)) },
});

/** 503 of the image paths alone (uploads waiting to be re-encoded, or downloads waiting for their bytes). */
export const imagesBusy: ResponseSpec = {
  description: 'Too many images are being processed or read right now; only the image paths say so. Retry after `Retry-After` seconds.',
  body: 'Error',
  headers: ['Retry-After'],
  examples: { busy: example('Images busy', errorBody(messages.imagesBusy)) },
};

export const exportAlternatives = [
  {
    mediaType: 'text/csv',
    description:
      'With `format=csv`: every match as CSV (one row per run). Text fields are quoted, and an `=`, `+`, `-` or `@` that could start a ' +
      "spreadsheet cell (at the start, or after a comma, semicolon, tab or line break) gets a `'` in front; JSON Lines keeps the text as submitted.",
  },
  { mediaType: 'application/x-ndjson', description: 'With `format=jsonl`: every match as JSON Lines.' },
];

// ---------------------------------------------------------------------------
// Submissions (speed-test and quality runs): one window per user, safe retries
// ---------------------------------------------------------------------------

/** The 409 of a submission whose Idempotency-Key is still being written by another request. */
export const idempotencyInFlight: ResponseSpec = {
  description: 'Another request with the same Idempotency-Key is still being processed; retry shortly.',
  body: 'Error',
  examples: { inProgress: example('Same key in flight', errorBody(messages.idempotencyInFlight)) },
};

/** The 429 of a submission inside the user's window of `rule`. */
export function submissionRateLimited(rule: RateLimitRule): ResponseSpec {
  return {
    description: `Inside the rate-limit window (${rule.maxPerWindow} per ${rule.windowMs / 1000} s per user). Retry after \`Retry-After\` seconds.`,
    body: 'RateLimitError',
    headers: ['Retry-After'],
    examples: {
      limited: example('Rate limited', {
        error: rule.message,
        retryAfterMs: rule.windowMs - 5000,
        lastSubmittedAt: '2026-01-31T12:00:05.000Z',
      }),
    },
  };
}

/** The headers a 201 submission answer documents. */
export const SUBMISSION_CREATED_HEADERS: HeaderName[] = ['Location', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Idempotent-Replayed'];

/** A stored (or replayed) submission as the 201 answer: its address, the window and whether it was a replay. */
export function answerSubmission(
  res: Response,
  location: string,
  result: { run: unknown; rateLimit: { remaining: number; resetAt: Date }; replayed: boolean },
): void {
  res.location(location);
  res.set('X-RateLimit-Remaining', String(result.rateLimit.remaining));
  res.set('X-RateLimit-Reset', String(Math.ceil(result.rateLimit.resetAt.getTime() / 1000)));
  if (result.replayed) res.set('Idempotent-Replayed', 'true');
  res.status(201).json(result.run);
}
