import { z } from 'zod';
import { AUTHENTICATION_REQUIRED_MESSAGE } from '../lib/errors.ts';
import { SESSION_ONLY_MESSAGE } from '../middleware/require-auth.ts';
import type { RevisionProfile } from '../revisions.ts';
import { createApiKeySchema } from '../schemas/api-key.schema.ts';
import { submissionHeadersSchema } from '../schemas/headers.schema.ts';
import { leaderboardQuerySchema } from '../schemas/leaderboard-query.schema.ts';
import { modelSearchQuerySchema, modelsListQuerySchema } from '../schemas/models-query.schema.ts';
import { reactionSchema } from '../schemas/reaction.schema.ts';
import {
  agentContextResponseSchema,
  apiKeyListResponseSchema,
  badRequestResponseSchema,
  createdApiKeyResponseSchema,
  dryRunResponseSchema,
  errorResponseSchema,
  meResponseSchema,
  modelDetailResponseSchema,
  modelListResponseSchema,
  modelSearchResponseSchema,
  modelsResponseSchema,
  modelTreeNodeSchema,
  modelTreeResponseSchema,
  okResponseSchema,
  openApiDocumentResponseSchema,
  rateLimitErrorResponseSchema,
  reactionStateResponseSchema,
  runResponseSchemas,
  setupResponseSchema,
  validationErrorResponseSchema,
} from '../schemas/responses.schema.ts';
import { setupSchemas } from '../schemas/setup.schema.ts';
import { speedTestListQuerySchema } from '../schemas/speed-test-query.schema.ts';
import { speedTestSubmissionSchema } from '../schemas/speed-test.schema.ts';
import { HUB_UNAVAILABLE_MESSAGE, hubNotFoundMessage } from '../services/hub.service.ts';
import { SETUP_NAME_TAKEN } from '../services/setups.service.ts';
import { parameterDescriptions } from './descriptions.ts';
import { answerExamples, submissionExamples } from './examples.ts';

/**
 * The API's route table as data: every operation of a revision with its path, auth,
 * request schemas and every response it can give. The OpenAPI document, the /docs pages
 * and the agent-context's endpoint list are generated from it; the contract tests check
 * that it matches the routes Express registers for the revision exactly, and that every
 * documented status is really produced with a body of the documented schema.
 */

export type HttpMethod = 'get' | 'post' | 'patch' | 'delete';
export type AuthMode = 'public' | 'key|session' | 'session';

export const apiTags = [
  { name: 'Speed tests', description: 'Submit, dry-run and list speed-test runs.' },
  { name: 'Leaderboard', description: 'Runs ranked by output tokens per second.' },
  { name: 'Models', description: 'The model catalogue, built from the Hugging Face hub as runs arrive.' },
  { name: 'Reactions', description: 'One reaction per user per run.' },
  { name: 'Account', description: 'Who the credentials belong to.' },
  { name: 'API keys', description: 'Bearer keys for agents (managed with a browser session).' },
  { name: 'Saved setups', description: 'Named hardware/engine configurations that pre-fill the submit form (browser session only).' },
  { name: 'Agent metadata', description: 'Machine-readable descriptions of this API.' },
] as const;
export type TagName = (typeof apiTags)[number]['name'];

/** Response headers the document describes (zod, converted like every other schema); sent every time unless `optional`. */
export const responseHeaders = {
  'X-RateLimit-Remaining': { description: 'Submissions left in the current window (0 or 1).', schema: z.int().min(0).max(1) },
  'X-RateLimit-Reset': { description: 'Unix time in seconds when the window resets.', schema: z.int().min(0) },
  'Retry-After': { description: 'Seconds to wait before retrying.', schema: z.int().min(1) },
  Location: { description: 'Address of the created resource.', schema: z.string() },
  'Idempotent-Replayed': { description: '`true` when this is the stored answer to an earlier request with the same Idempotency-Key.', schema: z.literal('true'), optional: true },
  Deprecation: { description: 'This path is kept for revision-2 clients.', schema: z.literal('true') },
  Link: { description: 'The successor path.', schema: z.string() },
  ETag: { description: 'Validator for `If-None-Match`.', schema: z.string() },
  'Cache-Control': { description: 'How long the answer may be cached.', schema: z.string() },
} satisfies Record<string, { description: string; schema: z.ZodType; optional?: true }>;
export type HeaderName = keyof typeof responseHeaders;

/** Named request-body schemas (`components.schemas`, converted as a client sends them). */
export function requestComponents(profile: RevisionProfile) {
  const setup = setupSchemas(profile);
  return {
    SpeedTestSubmission: speedTestSubmissionSchema(profile),
    CreateApiKey: createApiKeySchema,
    SetupCreate: setup.create,
    SetupPatch: setup.patch,
    Reaction: reactionSchema,
  } satisfies Record<string, z.ZodType>;
}

/** Named response-body schemas (converted as a client reads them). */
export function responseComponents(profile: RevisionProfile) {
  const runs = runResponseSchemas(profile);
  const setup = setupResponseSchema(profile);
  return {
    Error: errorResponseSchema,
    ValidationError: validationErrorResponseSchema,
    BadRequest: badRequestResponseSchema,
    RateLimitError: rateLimitErrorResponseSchema,
    SpeedTestRun: runs.run,
    SpeedTestList: runs.runList,
    LeaderboardPage: runs.leaderboardPage,
    DryRunResult: dryRunResponseSchema(profile),
    ModelList: modelListResponseSchema,
    ModelTreeNode: modelTreeNodeSchema,
    ModelTree: modelTreeResponseSchema,
    Models: modelsResponseSchema,
    ModelSearchResults: modelSearchResponseSchema,
    ModelDetail: modelDetailResponseSchema,
    Me: meResponseSchema,
    ApiKeyList: apiKeyListResponseSchema,
    CreatedApiKey: createdApiKeyResponseSchema,
    Ok: okResponseSchema,
    Setup: setup,
    SetupList: setupListSchemas(setup),
    ReactionState: reactionStateResponseSchema,
    AgentContext: agentContextResponseSchema,
    OpenApiDocument: openApiDocumentResponseSchema,
  } satisfies Record<string, z.ZodType>;
}

// One list schema per setup schema, so the registry sees one instance per name.
const setupLists = new WeakMap<z.ZodType, z.ZodType>();
function setupListSchemas(setup: z.ZodType): z.ZodType {
  let list = setupLists.get(setup);
  if (!list) setupLists.set(setup, (list = z.array(setup).meta({ description: 'The default setup first, then the most recently updated' })));
  return list;
}

export type RequestComponent = keyof ReturnType<typeof requestComponents>;
export type ResponseComponent = keyof ReturnType<typeof responseComponents>;

export interface Example {
  summary: string;
  value: unknown;
}

export interface ResponseSpec {
  description: string;
  /** JSON body; none for 204 and 304. */
  body?: ResponseComponent;
  /** The same answer in other media types (exports). */
  alternatives?: { mediaType: string; description: string }[];
  headers?: HeaderName[];
  examples?: Record<string, Example>;
}

export interface ApiOperation {
  operationId: string;
  method: HttpMethod;
  /** Express path, /api included (`/api/setups/:id`). */
  path: string;
  tags: TagName[];
  summary: string;
  description?: string;
  auth: AuthMode;
  /** A revision-2 path a revision-3 deployment keeps: the operation it stands for. */
  aliasOf?: string;
  pathParams?: z.ZodObject;
  query?: { schema: z.ZodType; descriptions: Record<string, string> };
  headers?: z.ZodObject;
  body?: { component: RequestComponent; examples?: Record<string, Example> };
  responses: Record<number, ResponseSpec>;
}

// ---------------------------------------------------------------------------
// Responses shared by many operations
// ---------------------------------------------------------------------------

const example = (summary: string, value: unknown): Example => ({ summary, value });
const errorBody = (error: string) => ({ error });

const validationExample = (fieldErrors: Record<string, string[]>) =>
  example('Validation failed', { error: 'Validation failed', details: { fieldErrors, formErrors: [] } });

function badRequest(description: string, fieldErrors: Record<string, string[]>, more: Record<string, Example> = {}): ResponseSpec {
  return { description, body: 'BadRequest', examples: { validation: validationExample(fieldErrors), ...more } };
}

const malformedJson = example('Body is not JSON', errorBody('Malformed JSON body'));

const unauthorized = (extra: Record<string, Example> = {}): ResponseSpec => ({
  description: 'Credentials missing, expired, revoked or invalid.',
  body: 'Error',
  examples: { missing: example('No or bad credentials', errorBody(AUTHENTICATION_REQUIRED_MESSAGE)), ...extra },
});

const csrfExample = example('Session request without the CSRF token', errorBody('Invalid CSRF token'));
const forbiddenCsrf: ResponseSpec = {
  description: 'A session-authenticated request without the session CSRF token (`X-CSRF-Token`).',
  body: 'Error',
  examples: { csrf: csrfExample },
};

const notFound = (what: string, message: string): ResponseSpec => ({ description: `${what} not found.`, body: 'Error', examples: { notFound: example(`Unknown ${what.toLowerCase()}`, errorBody(message)) } });

const runIdParams = z.object({ id: z.uuid().meta({ description: 'Run id' }) });
const setupIdParams = z.object({ id: z.uuid().meta({ description: 'Setup id' }) });
const keyIdParams = z.object({ id: z.uuid().meta({ description: 'API key id' }) });
const modelParams = z.object({
  org: z.string().meta({ description: 'Organisation part of the hfId' }),
  model: z.string().meta({ description: 'Model part of the hfId' }),
});

const exportAlternatives = [
  { mediaType: 'text/csv', description: 'With `format=csv`: every match as CSV (one row per run).' },
  { mediaType: 'application/x-ndjson', description: 'With `format=jsonl`: every match as JSON Lines.' },
];

// ---------------------------------------------------------------------------
// The operations
// ---------------------------------------------------------------------------

function speedTestOperations(profile: RevisionProfile, base: string, alias = false): ApiOperation[] {
  const rule = profile.metricRule;
  const limit = profile.rateLimits.speedTestSubmission;
  const examples = submissionExamples(profile);
  const bodyExamples: Record<string, Example> = {};
  for (const [hwClass, value] of Object.entries(examples.minimal)) bodyExamples[`minimal_${hwClass}`] = example(`Minimal, ${hwClass}`, value);
  for (const [hwClass, value] of Object.entries(examples.full)) bodyExamples[`full_${hwClass}`] = example(`Every field, ${hwClass}`, value);
  const answers = answerExamples(profile);
  const deprecation: HeaderName[] = alias ? ['Deprecation', 'Link'] : [];
  const id = (name: string) => (alias ? `${name}ViaRevision2Path` : name);
  const aliasOf = (name: string) => (alias ? { aliasOf: name } : {});
  const aliasNote = alias ? ` Kept for revision-2 clients with the revision-3 rules; use ${profile.resultsPath}.` : '';

  const unprocessable: Record<string, Example> = {
    idempotency: example('Idempotency-Key reused with another body', errorBody('Idempotency-Key was already used with a different request body')),
  };
  const metricExample: Record<string, Example> = 'status' in rule ? { metric: example('Metric rule', errorBody(rule.message)) } : {};
  const hubNotFound: ResponseSpec = {
    description: 'The model id does not exist on the hub (or the hub is offline and the model is not catalogued).',
    body: 'Error',
    examples: { notFound: example('Unknown model', errorBody(hubNotFoundMessage('someorg/No-Such-Model', 'https://huggingface.co'))) },
  };
  const hubUnavailable: ResponseSpec = {
    description: 'The model hub could not answer (rate limited, timed out); nothing was written. Retry after `Retry-After` seconds.',
    body: 'Error',
    headers: ['Retry-After', ...deprecation],
    examples: { hub: example('Hub unavailable', errorBody(HUB_UNAVAILABLE_MESSAGE)) },
  };
  const submissionBadRequest = badRequest(
    'The body fails validation (see `details`), the body is not JSON, or the Idempotency-Key is malformed.',
    { 'hardware.vramGb': ['Required unless gpus is given'], engineName: [`Must be one of: ${profile.engines.slice(0, 3).join(', ')}, ...`] },
    { malformed: malformedJson },
  );
  const dryRunBadRequest = badRequest(
    'The body fails validation (see `details`) or is not JSON.',
    { 'hardware.vramGb': ['Required unless gpus is given'] },
    { malformed: malformedJson },
  );

  const ops: ApiOperation[] = [
    {
      operationId: id('listSpeedTests'),
      ...aliasOf('listSpeedTests'),
      method: 'get',
      path: base,
      tags: ['Speed tests'],
      summary: 'List approved runs, newest first',
      description: `Filters combine with AND; unknown parameters are a 400.${aliasNote}`,
      auth: 'public',
      query: { schema: speedTestListQuerySchema(profile), descriptions: parameterDescriptions.results },
      responses: {
        200: { description: 'One page of runs.', body: 'SpeedTestList', headers: deprecation, alternatives: exportAlternatives },
        400: badRequest('A parameter is unknown or out of bounds.', { limit: [`Must be at most ${profile.bounds.pageLimit.results.max}`] }),
      },
    },
    {
      operationId: id('submitSpeedTest'),
      ...aliasOf('submitSpeedTest'),
      method: 'post',
      path: base,
      tags: ['Speed tests'],
      summary: 'Submit a run',
      description:
        `Stored as APPROVED and public at once. ${limit.maxPerWindow} submission per ${limit.windowMs / 60_000} minute${limit.windowMs === 60_000 ? '' : 's'} per user; ` +
        `dry-run first (${profile.features.dryRun ? `${profile.resultsPath}/dry-run` : 'not in this revision'}). Send an Idempotency-Key to retry safely.${aliasNote}`,
      auth: 'key|session',
      headers: submissionHeadersSchema,
      body: { component: 'SpeedTestSubmission', examples: bodyExamples },
      responses: {
        201: {
          description: 'The stored run.',
          body: 'SpeedTestRun',
          examples: { stored: example('The full DISCRETE_GPU example, stored', answers.run) },
          headers: ['Location', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Idempotent-Replayed', ...deprecation],
        },
        400: submissionBadRequest,
        401: unauthorized(),
        403: forbiddenCsrf,
        404: hubNotFound,
        409: {
          description: 'Another request with the same Idempotency-Key is still being processed; retry shortly.',
          body: 'Error',
          examples: { inProgress: example('Same key in flight', errorBody('A request with this Idempotency-Key is still in progress; retry shortly')) },
        },
        422: {
          description: 'status' in rule
            ? 'The revision\'s metric rule is not met, or the Idempotency-Key was used with another body.'
            : 'The Idempotency-Key was used with another body.',
          body: 'Error',
          examples: { ...metricExample, ...unprocessable },
        },
        429: {
          description: `Inside the rate-limit window (${limit.maxPerWindow} per ${limit.windowMs / 1000} s per user). Retry after \`Retry-After\` seconds.`,
          body: 'RateLimitError',
          headers: ['Retry-After', ...deprecation],
          examples: { limited: example('Rate limited', { error: limit.message, retryAfterMs: limit.windowMs - 5000, lastSubmittedAt: '2026-01-31T12:00:05.000Z' }) },
        },
        503: hubUnavailable,
      },
    },
  ];
  if (profile.features.dryRun) {
    const dryRunErrors: Record<number, ResponseSpec> = {
      400: dryRunBadRequest,
      401: unauthorized(),
      403: forbiddenCsrf,
      404: hubNotFound,
    };
    if ('status' in rule) dryRunErrors[rule.status] = { description: "The revision's metric rule is not met.", body: 'Error', examples: metricExample };
    dryRunErrors[503] = hubUnavailable;
    ops.push({
      operationId: id('dryRunSpeedTest'),
      ...aliasOf('dryRunSpeedTest'),
      method: 'post',
      path: `${base}/dry-run`,
      tags: ['Speed tests'],
      summary: 'Validate a run without storing it',
      description: `Every check of a real submission (hub lookup included) and the normalised payload; writes nothing and does not use the rate limit.${aliasNote}`,
      auth: 'key|session',
      body: { component: 'SpeedTestSubmission', examples: bodyExamples },
      responses: {
        200: { description: 'The submission is valid.', body: 'DryRunResult', headers: deprecation, examples: { valid: example('The full DISCRETE_GPU example, normalised', answers.dryRun) } },
        ...dryRunErrors,
      },
    });
  }
  if (!alias) return ops;
  // The alias marks every answer its route gives, errors included. 400 (a body that is not
  // JSON), 401 (a bad key) and 403 (CSRF) can also come from the app-wide middleware that
  // runs before any route, without the marks, so there they are not promised.
  const fromMiddlewareToo = new Set(['400', '401', '403']);
  return ops.map((op) => ({
    ...op,
    responses: Object.fromEntries(
      Object.entries(op.responses).map(([status, spec]) => [
        status,
        fromMiddlewareToo.has(status) ? spec : { ...spec, headers: [...new Set<HeaderName>([...(spec.headers ?? []), ...deprecation])] },
      ]),
    ),
  }));
}

export function apiOperations(profile: RevisionProfile): ApiOperation[] {
  const ops: ApiOperation[] = [];
  const results = profile.resultsPath;

  ops.push(...speedTestOperations(profile, results));
  ops.push({
    operationId: 'getSpeedTest',
    method: 'get',
    path: `${results}/:id`,
    tags: ['Speed tests'],
    summary: 'One approved run',
    auth: 'public',
    pathParams: runIdParams,
    responses: {
      200: { description: 'The run.', body: 'SpeedTestRun', examples: { run: example('A stored run', answerExamples(profile).run) } },
      404: notFound('Run', 'Speed-test run not found'),
    },
  });
  // Revision-2 results paths a revision-3 deployment keeps (quality aliases come with quality evaluations).
  for (const alias of profile.legacyAliases.filter((a) => a.kind === 'results')) {
    const base = alias.path.replace(/\/dry-run$/, '');
    const aliased = speedTestOperations(profile, base, true);
    ops.push(...aliased.filter((op) => op.path === alias.path && alias.methods.includes(op.method.toUpperCase() as 'GET')));
  }

  ops.push({
    operationId: 'getLeaderboard',
    method: 'get',
    path: '/api/leaderboard',
    tags: ['Leaderboard'],
    summary: 'Ranked runs',
    description: 'Approved runs ranked by tokSOut, descending (or by `sort`). Unknown parameters are a 400.',
    auth: 'public',
    query: { schema: leaderboardQuerySchema(profile), descriptions: parameterDescriptions.leaderboard },
    responses: {
      200: { description: 'One page of ranked runs.', body: 'LeaderboardPage', alternatives: exportAlternatives },
      400: badRequest('A parameter is unknown or out of bounds.', { memTier: ['Must be one of 8, 12, 16, 24, 32, 48, 80, 96, 128'] }),
    },
  });

  ops.push({
    operationId: 'listModels',
    method: 'get',
    path: '/api/models',
    tags: ['Models'],
    summary: 'The model catalogue',
    description: 'Most-benchmarked first. `tree=true` nests finetunes, quants, adapters and merges under their base model.',
    auth: 'public',
    query: { schema: modelsListQuerySchema(profile), descriptions: parameterDescriptions.models },
    responses: {
      200: { description: 'A page of models (flat, or trees with `tree=true`).', body: 'Models' },
      400: badRequest('A parameter is unknown or out of bounds.', { limit: [`Must be at most ${profile.bounds.pageLimit.models.max}`] }),
    },
  });
  if (profile.features.modelSearch) {
    ops.push({
      operationId: 'searchModels',
      method: 'get',
      path: '/api/models/search',
      tags: ['Models'],
      summary: 'Search the catalogue',
      description: 'Exact id first, then prefix matches, then any substring; each group by run count.',
      auth: 'public',
      query: { schema: modelSearchQuerySchema(profile), descriptions: parameterDescriptions.modelSearch },
      responses: {
        200: { description: 'Matching models.', body: 'ModelSearchResults' },
        400: badRequest('`q` is missing, or a parameter is unknown or out of bounds.', { q: ['Required'] }),
      },
    });
  }
  ops.push({
    operationId: 'getModel',
    method: 'get',
    path: '/api/models/:org/:model',
    tags: ['Models'],
    summary: 'One model with its base, children and run summary',
    auth: 'public',
    pathParams: modelParams,
    responses: {
      200: { description: 'The model.', body: 'ModelDetail' },
      404: notFound('Model', "Model 'someorg/No-Such-Model' is not in the catalogue"),
    },
  });

  ops.push({
    operationId: 'reactToRun',
    method: 'post',
    path: '/api/runs/:id/react',
    tags: ['Reactions'],
    summary: 'React to a run, or take the reaction back',
    description: 'One reaction per user per run: a new emoji replaces the old one, `null` removes it.',
    auth: 'key|session',
    pathParams: runIdParams,
    body: { component: 'Reaction', examples: { react: example('React', { emoji: 'fire' }), remove: example('Take it back', { emoji: null }) } },
    responses: {
      200: { description: 'The run\'s reaction counts and the caller\'s reaction.', body: 'ReactionState', examples: { state: example('After reacting', { reactionCounts: { fire: 3, rocket: 1 }, myEmoji: 'fire' }) } },
      400: badRequest('The body is not `{ emoji }` with an accepted emoji or null.', { emoji: ['Must be one of fire, rocket, 100, brain, chad, or null to remove your reaction'] }),
      401: unauthorized(),
      403: forbiddenCsrf,
      404: notFound('Run', 'Speed-test run not found'),
    },
  });

  ops.push({
    operationId: 'getMe',
    method: 'get',
    path: '/api/me',
    tags: ['Account'],
    summary: 'Whose credentials these are',
    description: 'Lets an agent check its key before submitting.',
    auth: 'key|session',
    responses: { 200: { description: 'The caller.', body: 'Me' }, 401: unauthorized() },
  });

  const keyOnSessionPath: ResponseSpec = {
    description: 'A Bearer key was used (key management needs a browser session), or the CSRF token is missing.',
    body: 'Error',
    examples: { key: example('Bearer key on a session-only path', errorBody(SESSION_ONLY_MESSAGE)), csrf: csrfExample },
  };
  ops.push(
    {
      operationId: 'listApiKeys',
      method: 'get',
      path: '/api/keys',
      tags: ['API keys'],
      summary: 'Your live API keys (never the secrets)',
      auth: 'session',
      responses: {
        200: { description: 'Newest first.', body: 'ApiKeyList' },
        401: unauthorized(),
        403: { ...keyOnSessionPath, description: 'A Bearer key was used: key management needs a browser session.', examples: { key: keyOnSessionPath.examples!.key! } },
      },
    },
    {
      operationId: 'createApiKey',
      method: 'post',
      path: '/api/keys',
      tags: ['API keys'],
      summary: 'Create an API key',
      description: `At most ${profile.bounds.apiKeysPerAccount} live keys per account. The secret is in this answer only.`,
      auth: 'session',
      body: { component: 'CreateApiKey', examples: { key: example('A key for an agent', { name: 'my benchmark agent', expiresAt: '2030-01-01T00:00:00Z' }) } },
      responses: {
        201: { description: 'The new key with its secret.', body: 'CreatedApiKey' },
        400: badRequest('The body fails validation.', { name: ['Name is required'] }, { malformed: malformedJson }),
        401: unauthorized(),
        403: keyOnSessionPath,
        409: { description: 'The account already has the maximum of live keys.', body: 'Error', examples: { limit: example('Key limit', errorBody(`API key limit reached (${profile.bounds.apiKeysPerAccount})`)) } },
      },
    },
    {
      operationId: 'revokeApiKey',
      method: 'delete',
      path: '/api/keys/:id',
      tags: ['API keys'],
      summary: 'Revoke an API key',
      auth: 'session',
      pathParams: keyIdParams,
      responses: {
        200: { description: 'Revoked: the key is a 401 from now on.', body: 'Ok', examples: { ok: example('Revoked', { ok: true }) } },
        401: unauthorized(),
        403: keyOnSessionPath,
        404: notFound('API key', 'API key not found'),
      },
    },
  );

  const setupSession = unauthorized({ key: example('Bearer key on a session-only path', errorBody(SESSION_ONLY_MESSAGE)) });
  setupSession.description = 'No session (a Bearer key does not count here).';
  const setupBadRequest = badRequest(
    'The body fails validation (bounds, unknown fields, fields of another hardware class).',
    { gpuName: ['Does not apply to hwClass CPU_ONLY; clear it (null) or change hwClass'] },
    { malformed: malformedJson },
  );
  const nameTaken: ResponseSpec = { description: 'You already have a setup with this name.', body: 'Error', examples: { taken: example('Name taken', errorBody(SETUP_NAME_TAKEN)) } };
  const setupNotFound = notFound('Setup', 'Setup not found');
  ops.push(
    {
      operationId: 'listSetups',
      method: 'get',
      path: '/api/setups',
      tags: ['Saved setups'],
      summary: 'Your saved setups',
      auth: 'session',
      responses: { 200: { description: 'Default first, then most recently updated.', body: 'SetupList' }, 401: setupSession },
    },
    {
      operationId: 'createSetup',
      method: 'post',
      path: '/api/setups',
      tags: ['Saved setups'],
      summary: 'Save a setup',
      description: '`isDefault: true` clears the default flag of your other setups.',
      auth: 'session',
      body: {
        component: 'SetupCreate',
        examples: { setup: example('A GPU box', { name: '4090 box', isDefault: true, hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA GeForce RTX 4090', vramGb: 24, engineName: 'llama.cpp', quantization: 'Q4_K_M', gpuLayers: 99, flashAttn: true, contextLength: 8192 }) },
      },
      responses: {
        201: { description: 'The stored setup.', body: 'Setup', headers: ['Location'] },
        400: setupBadRequest,
        401: setupSession,
        403: forbiddenCsrf,
        409: nameTaken,
      },
    },
    {
      operationId: 'getSetup',
      method: 'get',
      path: '/api/setups/:id',
      tags: ['Saved setups'],
      summary: 'One of your setups',
      auth: 'session',
      pathParams: setupIdParams,
      responses: { 200: { description: 'The setup.', body: 'Setup' }, 401: setupSession, 404: setupNotFound },
    },
    {
      operationId: 'updateSetup',
      method: 'patch',
      path: '/api/setups/:id',
      tags: ['Saved setups'],
      summary: 'Change some fields of a setup',
      description: 'Only the fields given change; `null` clears a field.',
      auth: 'session',
      pathParams: setupIdParams,
      body: { component: 'SetupPatch', examples: { rename: example('Rename and clear a field', { name: 'old 4090 box', gpuLayers: null }) } },
      responses: {
        200: { description: 'The setup as stored now.', body: 'Setup' },
        400: setupBadRequest,
        401: setupSession,
        403: forbiddenCsrf,
        404: setupNotFound,
        409: nameTaken,
      },
    },
    {
      operationId: 'deleteSetup',
      method: 'delete',
      path: '/api/setups/:id',
      tags: ['Saved setups'],
      summary: 'Delete a setup',
      auth: 'session',
      pathParams: setupIdParams,
      responses: { 204: { description: 'Deleted (no body).' }, 401: setupSession, 403: forbiddenCsrf, 404: setupNotFound },
    },
  );

  const cached = (what: string, body: ResponseComponent): Record<number, ResponseSpec> => ({
    200: { description: what, body, headers: ['ETag', 'Cache-Control'] },
    304: { description: 'Not modified: the `If-None-Match` ETag still matches.', headers: ['ETag', 'Cache-Control'] },
  });
  if (profile.features.openApi) ops.push({
    operationId: 'getOpenApiDocument',
    method: 'get',
    path: '/api/openapi.json',
    tags: ['Agent metadata'],
    summary: 'This OpenAPI 3.1 document',
    description: 'Generated from the same schemas that validate requests; exactly the operations of this revision.',
    auth: 'public',
    responses: cached('This document.', 'OpenApiDocument'),
  });
  if (profile.features.agentMetadata) {
    ops.push({
      operationId: 'getAgentContext',
      method: 'get',
      path: '/api/agent-context',
      tags: ['Agent metadata'],
      summary: 'Everything an agent needs to submit a correct run',
      description: 'Accepted values, request schemas, worked examples, methodology tips, rate limits, bucket rules, the plausibility formula and error shapes, in one cached answer.',
      auth: 'public',
      responses: cached('The agent context.', 'AgentContext'),
    });
  }
  return ops;
}

/** `/api/setups/:id` -> `/api/setups/{id}` */
export function openApiPath(expressPath: string): string {
  return expressPath.replace(/:(\w+)/g, '{$1}');
}
