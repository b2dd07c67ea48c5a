import type { z } from 'zod';
import { legacyAliasesOf, type LegacyAlias, type RevisionProfile } from '../revisions.ts';
import { perRevision } from '../schemas/query-params.ts';
import {
  badRequestResponseSchema,
  errorResponseSchema,
  okResponseSchema,
  rateLimitErrorResponseSchema,
  tooManyRequestsResponseSchema,
  validationErrorResponseSchema,
} from '../schemas/responses.schema.ts';
import { accountApi } from './account.ts';
import { deviceLoginApi } from './device-login.ts';
import { agentMetadataApi } from './agent-metadata.ts';
import { apiKeysApi } from './api-keys.ts';
import { executeApi } from './execute.ts';
import { leaderboardApi } from '../runs/http/leaderboard.api.ts';
import { marketplaceApi } from './marketplace.ts';
import { modelsApi } from './models.ts';
import { predictionsApi } from './predictions.ts';
import type { ApiOperation, ApiResource, HeaderName } from './operation.ts';
import { qualityApi } from './quality.ts';
import { qualityDownloadsApi } from './quality-downloads.ts';
import { reactionsApi } from './reactions.ts';
import { reportsApi } from './reports.ts';
import { setupsApi } from './setups.ts';
import { speedTestsApi } from '../runs/http/speed-tests.api.ts';

/** Error and acknowledgement bodies any resource may answer with. */
const sharedApi: ApiResource = {
  responses: () => ({
    Error: errorResponseSchema,
    ValidationError: validationErrorResponseSchema,
    BadRequest: badRequestResponseSchema,
    RateLimitError: rateLimitErrorResponseSchema,
    TooManyRequests: tooManyRequestsResponseSchema,
    Ok: okResponseSchema,
  }),
  operations: () => [],
};

/** Every resource of the API, in the order the documents list them. A new resource is added here. */
const resources: readonly ApiResource[] = [
  sharedApi,
  speedTestsApi,
  leaderboardApi,
  modelsApi,
  predictionsApi,
  reactionsApi,
  qualityApi,
  qualityDownloadsApi,
  executeApi,
  accountApi,
  deviceLoginApi,
  apiKeysApi,
  setupsApi,
  marketplaceApi,
  reportsApi,
  agentMetadataApi,
];

/** Every tag, in the order the documents list them. */
export const apiTags = resources.flatMap((resource) => (resource.tag ? [resource.tag] : []));

// Answers from the app-wide middleware (a body that is not JSON, a bad key, CSRF) come before
// any route, so an alias cannot mark them: they are documented without the alias headers.
const ANSWERED_BEFORE_ROUTES = new Set(['400', '401', '403']);
const ALIAS_HEADERS: HeaderName[] = ['Deprecation', 'Link'];

/** The copy of `op` that a revision-3 deployment keeps answering at a revision-2 path. */
function aliasOperation(op: ApiOperation, path: string, successor: string): ApiOperation {
  const note = ` Kept for revision-2 clients with the revision-3 rules; use ${op.path}.`;
  return {
    ...op,
    operationId: `${op.operationId}ViaRevision2Path`,
    aliasOf: op.operationId,
    successor,
    path,
    description: `${op.description ?? ''}${note}`.trim(),
    responses: Object.fromEntries(
      Object.entries(op.responses).map(([status, spec]) => [
        status,
        ANSWERED_BEFORE_ROUTES.has(status) || spec.beforeRoutes
          ? spec
          : { ...spec, headers: [...new Set<HeaderName>([...(spec.headers ?? []), ...ALIAS_HEADERS])] },
      ]),
    ),
  };
}

/** The operations an alias keeps: those at its target path (or below it, for a prefix alias), with its methods. */
function aliasesOf(ops: readonly ApiOperation[], alias: LegacyAlias): ApiOperation[] {
  const methods = new Set(alias.methods.map((method) => method.toLowerCase()));
  return ops.flatMap((op) => {
    if (!methods.has(op.method)) return [];
    if (op.path === alias.target) return [aliasOperation(op, alias.path, alias.successor)];
    if (alias.match === 'prefix' && op.path.startsWith(`${alias.target}/`))
      return [aliasOperation(op, alias.path + op.path.slice(alias.target.length), alias.successor)];
    return [];
  });
}

/** Every operation of a revision: the resources' own, then the revision-2 paths it keeps. */
export const apiOperations = perRevision((profile: RevisionProfile): ApiOperation[] => {
  const own = resources.flatMap((resource) =>
    resource.operations(profile).map((op) => ({ ...op, tags: resource.tag ? [resource.tag.name] : [] })),
  );
  return [...own, ...legacyAliasesOf(profile).flatMap((alias) => aliasesOf(own, alias))];
});

/** Named request-body schemas (`components.schemas`, converted as a client sends them), from the operations. */
export const requestComponents = perRevision((profile: RevisionProfile): Record<string, z.ZodType> => {
  const components: Record<string, z.ZodType> = {};
  for (const op of apiOperations(profile)) {
    if (!op.body) continue;
    const known = components[op.body.component];
    if (known && known !== op.body.schema) throw new Error(`API: request component ${op.body.component} names two different schemas`);
    components[op.body.component] = op.body.schema;
  }
  return components;
});

/** Named response-body schemas (converted as a client reads them), from the resources. */
export const responseComponents = perRevision((profile: RevisionProfile): Record<string, z.ZodType> => {
  const components: Record<string, z.ZodType> = {};
  for (const resource of resources) {
    for (const [name, schema] of Object.entries(resource.responses(profile))) {
      if (name in components) throw new Error(`API: response component ${name} is declared twice`);
      components[name] = schema;
    }
  }
  return components;
});

/** `/api/setups/:id` -> `/api/setups/{id}` */
export function openApiPath(expressPath: string): string {
  return expressPath.replace(/:(\w+)/g, '{$1}');
}
