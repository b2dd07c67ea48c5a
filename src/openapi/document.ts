import { z } from 'zod';
import { apiOperations, apiTags, openApiPath, requestComponents, responseComponents } from '../api/index.ts';
import { responseHeaders, type ApiOperation, type AuthMode, type ResponseSpec } from '../api/operation.ts';
import { MAX_INPUT_DEPTH } from '../lib/validation.ts';
import { messages } from '../messages.ts';
import type { RevisionProfile } from '../revisions.ts';
import { componentSchemasOf, jsonSchemaOf, type JsonSchema } from '../schemas/json-schema.ts';
import { describeProperties, fieldDescriptions } from './descriptions.ts';

/**
 * The OpenAPI 3.1 document of a revision, generated from the operation declarations
 * (src/api) and the zod schemas: nothing in it is written by hand.
 */

export const SESSION_COOKIE_NAME = 'bh.sid';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

// Response schemas share many field names with the submission; `name` means different things there.
const responseFieldDescriptions = Object.fromEntries(
  Object.entries(fieldDescriptions).filter(([name]) => !['name', 'description', 'emoji', 'expiresAt'].includes(name)),
);

function security(auth: AuthMode) {
  if (auth === 'public') return undefined;
  return auth === 'session' ? [{ sessionCookie: [] }] : [{ bearerAuth: [] }, { sessionCookie: [] }];
}

/** The properties of an object schema as OpenAPI parameters of one location. */
function parameters(schema: z.ZodType, location: 'path' | 'query' | 'header', descriptions: Record<string, string> = {}) {
  const json = jsonSchemaOf(schema, 'input');
  const required = new Set((json.required as string[] | undefined) ?? []);
  return Object.entries((json.properties ?? {}) as Record<string, JsonSchema>).map(([name, property]) => {
    const { description, ...propertySchema } = property;
    return {
      name,
      in: location,
      required: location === 'path' || required.has(name),
      ...((description ?? descriptions[name]) ? { description: (description ?? descriptions[name]) as string } : {}),
      schema: propertySchema,
    };
  });
}

function response(spec: ResponseSpec) {
  const content: Record<string, unknown> = {};
  if (spec.body) {
    content['application/json'] = { schema: ref(spec.body), ...(spec.examples ? { examples: spec.examples } : {}) };
  }
  for (const alternative of spec.alternatives ?? []) {
    content[alternative.mediaType] = { schema: jsonSchemaOf(z.string().meta({ description: alternative.description }), 'output') };
  }
  return {
    description: spec.description,
    ...(spec.headers?.length
      ? { headers: Object.fromEntries(spec.headers.map((name) => [name, { $ref: `#/components/headers/${name}` }])) }
      : {}),
    ...(Object.keys(content).length ? { content } : {}),
  };
}

function operation(op: ApiOperation) {
  const params = [
    ...(op.pathParams ? parameters(op.pathParams, 'path') : []),
    ...(op.query ? parameters(op.query.schema, 'query', op.query.descriptions) : []),
    ...(op.headers ? parameters(op.headers, 'header') : []),
  ];
  const auth = security(op.auth);
  return {
    operationId: op.operationId,
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    tags: [...op.tags],
    ...(op.aliasOf ? { deprecated: true } : {}),
    ...(auth ? { security: auth } : {}),
    ...(params.length ? { parameters: params } : {}),
    ...(op.upload
      ? {
          requestBody: {
            required: true,
            content: {
              'multipart/form-data': {
                schema: {
                  type: 'object',
                  ...(op.upload.alsoField ? {} : { required: [op.upload.field] }),
                  properties: {
                    [op.upload.field]: { type: 'string', contentMediaType: 'application/octet-stream', description: op.upload.description },
                    ...(op.upload.alsoField
                      ? {
                          [op.upload.alsoField]: {
                            type: 'string',
                            contentMediaType: 'application/octet-stream',
                            description: `The same file, in this field instead of \`${op.upload.field}\``,
                          },
                        }
                      : {}),
                  },
                },
              },
            },
          },
        }
      : {}),
    ...(op.rawBody
      ? {
          requestBody: {
            required: true,
            description: op.rawBody.description,
            content: { 'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } },
          },
        }
      : {}),
    ...(op.body
      ? {
          requestBody: {
            required: true,
            content: {
              'application/json': { schema: ref(op.body.component), ...(op.body.examples ? { examples: op.body.examples } : {}) },
            },
          },
        }
      : {}),
    responses: Object.fromEntries(Object.entries(op.responses).map(([status, spec]) => [status, response(spec)])),
  };
}

function infoDescription(profile: RevisionProfile, origin: string): string {
  const limit = profile.speedTests.submissionLimit;
  return [
    `Interface revision ${profile.revision} of the LLM Bench leaderboard: submit local LLM inference speed tests, read the leaderboard and the model catalogue.`,
    '',
    `**Agents:** start with \`GET ${origin}/api/${profile.apiDocuments.agentContext ? 'agent-context' : 'openapi.json'}\` and the guide at ${origin}/docs/agents.`,
    '',
    '**Authentication:** `Authorization: Bearer bhk_<40 hex>` (API keys from /settings/keys), or the `bh.sid` session cookie of a signed-in browser. ' +
      'Unsafe requests made with the cookie must send the session CSRF token as `X-CSRF-Token`. A Bearer header that is malformed, unknown, expired or revoked is always a 401.',
    '',
    `**Errors** are JSON with an \`error\` text; validation failures are 400 \`{ error: 'Validation failed', details: { fieldErrors, formErrors } }\`. ` +
      `A missing credential is 401 \`${messages.authenticationRequired}\`. Any request with NUL characters, text that is not well-formed Unicode (lone surrogates), malformed percent-encoding or a body nested deeper than ${MAX_INPUT_DEPTH} levels is a 400; ` +
      'a body over 1 MB is a 413; an unknown path under /api is a 404 `{ error: "Not found" }`. Every answer carries `X-Request-Id`.',
    '',
    `**Rate limits:** ${limit.maxPerWindow} speed-test submission per ${limit.windowMs / 1000} s per account (dry-runs do not count). ` +
      'Reads: a generous per-address limit on every GET and a tighter one on CSV / JSON Lines exports, announced in the `RateLimit` and `RateLimit-Policy` headers; over it, 429 with `Retry-After`.',
  ].join('\n');
}

export function buildOpenApiDocument(profile: RevisionProfile, origin: string) {
  const operations = apiOperations(profile);
  const requests = componentSchemasOf(requestComponents(profile), 'input');
  const responses = componentSchemasOf(responseComponents(profile), 'output');
  for (const name of Object.keys(requests)) {
    if (name in responses) throw new Error(`OpenAPI: component ${name} is both a request and a response schema`);
    describeProperties(requests[name]!);
  }
  for (const schema of Object.values(responses)) describeProperties(schema, responseFieldDescriptions);

  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of operations) {
    for (const [status, spec] of Object.entries(op.responses)) {
      if (spec.body && !(spec.body in responses))
        throw new Error(`OpenAPI: ${op.operationId} ${status} names an unknown response component ${spec.body}`);
    }
    const path = (paths[openApiPath(op.path)] ??= {});
    if (path[op.method]) throw new Error(`OpenAPI: ${op.method.toUpperCase()} ${op.path} is declared twice`);
    path[op.method] = operation(op);
  }
  const usedTags = new Set(operations.flatMap((op) => op.tags));

  return {
    openapi: '3.1.0' as const,
    info: {
      title: 'LLM Bench leaderboard API',
      version: String(profile.revision),
      description: infoDescription(profile, origin),
    },
    servers: [{ url: origin, description: 'This deployment' }],
    externalDocs: { description: 'Guide for agents', url: `${origin}/docs/agents` },
    tags: apiTags.filter((tag) => usedTags.has(tag.name)).map((tag) => ({ ...tag })),
    paths,
    components: {
      schemas: { ...requests, ...responses },
      headers: Object.fromEntries(
        Object.entries(responseHeaders).map(([name, header]) => [
          name,
          {
            description: header.description,
            required: !('optional' in header && header.optional),
            schema: jsonSchemaOf(header.schema, 'output'),
          },
        ]),
      ),
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'bhk_<40 hex characters>',
          description: 'An API key from /settings/keys or POST /api/keys. Recommended for agents.',
        },
        sessionCookie: {
          type: 'apiKey',
          in: 'cookie',
          name: SESSION_COOKIE_NAME,
          description: 'The session of a signed-in browser. Unsafe requests also need the session CSRF token in `X-CSRF-Token`.',
        },
      },
    },
  };
}

export type OpenApiDocument = ReturnType<typeof buildOpenApiDocument>;
