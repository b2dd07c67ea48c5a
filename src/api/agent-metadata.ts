import type { Request, Response } from 'express';
import type { CachedDocument } from '../openapi/cache.ts';
import { baseUrlOf } from '../openapi/cache.ts';
import { agentContextResponseSchema, openApiDocumentResponseSchema } from '../schemas/responses.schema.ts';
import { operation, type ApiOperation, type ApiResource, type ResponseSpec } from './operation.ts';

// The documents change only with a deployment: caches may keep them briefly and revalidate by ETag.
const CACHE_CONTROL = 'public, max-age=300';

/** Answers a generated document from memory, or 304 when the client's ETag still matches. */
function sendCached(req: Request, res: Response, entry: CachedDocument<unknown>): void {
  res.set('ETag', entry.etag);
  res.set('Cache-Control', CACHE_CONTROL);
  // req.fresh compares If-None-Match with the ETag just set.
  if (req.fresh) {
    res.status(304).end();
    return;
  }
  res.type('application/json').send(entry.json);
}

const cached = (what: string, body: string): Record<number, ResponseSpec> => ({
  200: { description: what, body, headers: ['ETag', 'Cache-Control'] },
  304: { description: 'Not modified: the `If-None-Match` ETag still matches.', headers: ['ETag', 'Cache-Control'] },
});

/** Machine-readable descriptions of this API, generated from these declarations and the schemas. */
export const agentMetadataApi: ApiResource = {
  tags: [{ name: 'Agent metadata', description: 'Machine-readable descriptions of this API.' }],

  responses: () => ({ AgentContext: agentContextResponseSchema, OpenApiDocument: openApiDocumentResponseSchema }),

  operations(profile) {
    const ops: ApiOperation[] = [];
    if (profile.apiDocuments.openApi) {
      ops.push(
        operation({
          operationId: 'getOpenApiDocument',
          method: 'get',
          path: '/api/openapi.json',
          tags: ['Agent metadata'],
          summary: 'This OpenAPI 3.1 document',
          description: 'Generated from the same schemas that validate requests; exactly the operations of this revision.',
          auth: 'public',
          responses: cached('This document.', 'OpenApiDocument'),
          handle({ req, res, app }) {
            sendCached(req, res, app.documents.openApi(baseUrlOf(req, app.config)));
          },
        }),
      );
    }
    if (profile.apiDocuments.agentContext) {
      ops.push(
        operation({
          operationId: 'getAgentContext',
          method: 'get',
          path: '/api/agent-context',
          tags: ['Agent metadata'],
          summary: 'Everything an agent needs to submit a correct run',
          description: 'Accepted values, request schemas, worked examples, methodology tips, rate limits, bucket rules, the plausibility formula and error shapes, in one cached answer.',
          auth: 'public',
          responses: cached('The agent context.', 'AgentContext'),
          handle({ req, res, app }) {
            sendCached(req, res, app.documents.agentContext(baseUrlOf(req, app.config)));
          },
        }),
      );
    }
    return ops;
  },
};
