import type { Request } from 'express';

/** JSON endpoints: everything under /api plus the health probe. Uses the original URL, so it
 *  answers the same inside a mounted router. */
export function isApiRequest(req: Request): boolean {
  const path = req.originalUrl.split('?')[0]!;
  return path === '/api' || path.startsWith('/api/') || path === '/healthz';
}

/** An htmx request wants a fragment, not a whole page. */
export function isHtmxRequest(req: Request): boolean {
  return req.get('HX-Request') === 'true';
}
