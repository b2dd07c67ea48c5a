import type { Request, Response } from 'express';
import type { AppContext } from '../app-context.ts';
import type { Config } from '../config.ts';
import { baseUrlOf, cacheScopeOf, type CachedDocument } from '../openapi/cache.ts';
import { agentContextResponseSchema, openApiDocumentResponseSchema } from '../schemas/responses.schema.ts';
import { operation, type ApiOperation, type ApiResource, type Route } from './operation.ts';

/**
 * Answers a generated document from memory, or 304 when the client's ETag still matches. The
 * documents change only with a deployment: caches may keep them briefly and revalidate by ETag.
 */
function sendCached(req: Request, res: Response, entry: CachedDocument<unknown>, config: Config): void {
  res.set('ETag', entry.etag);
  res.set('Cache-Control', `${cacheScopeOf(config)}, max-age=300`);
  // req.fresh compares If-None-Match with the ETag just set.
  if (req.fresh) {
    res.status(304).end();
    return;
  }
  res.type('application/json').send(entry.json);
}

/** A generated document, answered from memory with its ETag (304 when it still matches). */
function documentOperation(spec: {
  operationId: string;
  route: Route;
  summary: string;
  description: string;
  component: string;
  what: string;
  document: (app: AppContext) => (baseUrl: string) => CachedDocument<unknown>;
}): ApiOperation {
  return operation({
    operationId: spec.operationId,
    route: spec.route,
    summary: spec.summary,
    description: spec.description,
    auth: 'public',
    responses: {
      200: { description: spec.what, body: spec.component, headers: ['ETag', 'Cache-Control'] },
      304: { description: 'Not modified: the `If-None-Match` ETag still matches.', headers: ['ETag', 'Cache-Control'] },
    },
    handle({ req, res, app }) {
      sendCached(req, res, spec.document(app)(baseUrlOf(req, app.config)), app.config);
    },
  });
}

/** Machine-readable descriptions of this API, generated from these declarations and the schemas. */
export const agentMetadataApi: ApiResource = {
  tag: { name: 'Agent metadata', description: 'Machine-readable descriptions of this API.' },

  responses: () => ({ AgentContext: agentContextResponseSchema, OpenApiDocument: openApiDocumentResponseSchema }),

  operations(profile) {
    const ops: ApiOperation[] = [];
    if (profile.apiDocuments.openApi) {
      ops.push(
        documentOperation({
          operationId: 'getOpenApiDocument',
          route: 'GET /api/openapi.json',
          summary: 'This OpenAPI 3.1 document',
          description: 'Generated from the same schemas that validate requests; exactly the operations of this revision.',
          component: 'OpenApiDocument',
          what: 'This document.',
          document: (app) => app.documents.openApi,
        }),
      );
    }
    if (profile.apiDocuments.agentContext) {
      ops.push(
        documentOperation({
          operationId: 'getAgentContext',
          route: 'GET /api/agent-context',
          summary: 'Everything an agent needs to submit a correct run',
          description:
            'Accepted values, request schemas, worked examples, methodology tips, rate limits, bucket rules, the plausibility formula and error shapes, in one cached answer.',
          component: 'AgentContext',
          what: 'The agent context.',
          document: (app) => app.documents.agentContext,
        }),
      );
    }
    return ops;
  },
};
