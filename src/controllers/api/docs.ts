import type { Request, Response } from 'express';
import type { Config } from '../../config.ts';
import { baseUrlOf, type CachedDocument } from '../../openapi/cache.ts';
import type { ApiDocuments } from '../../openapi/documents.ts';

// The documents change only with a deployment: caches may keep them briefly and revalidate by ETag.
const CACHE_CONTROL = 'public, max-age=300';

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

/** GET /api/openapi.json and GET /api/agent-context: generated once, then answered from memory. */
export function apiDocsController(documents: ApiDocuments, config: Config) {
  return {
    openApi(req: Request, res: Response) {
      sendCached(req, res, documents.openApi(baseUrlOf(req, config)));
    },
    agentContext(req: Request, res: Response) {
      sendCached(req, res, documents.agentContext(baseUrlOf(req, config)));
    },
  };
}

