import type { Request, Response } from 'express';
import type { Config } from '../config.ts';
import { baseUrlOf, keepPrivateWithoutPublicUrl } from '../openapi/cache.ts';

/**
 * The one URL policy of answers: an address of this service in an answer is absolute, on
 * PUBLIC_URL when it is configured, else on the origin the request came to (`baseUrlOf`).
 * Services hand out ids and paths; the HTTP layer takes the origin from here and gives it to
 * the resource's serialiser.
 */

/**
 * The origin an answer's absolute URLs are built on. Without PUBLIC_URL that is the request's
 * Host, so the answer is marked `Cache-Control: private` (no shared cache may hand one
 * client's Host to another); a signed-in answer is already private, no-store.
 */
export function answerOrigin(req: Request, res: Response, config: Config): string {
  keepPrivateWithoutPublicUrl(res, config);
  return baseUrlOf(req, config);
}

/** `path` (from the root, e.g. `/reports/<id>`) as an absolute URL on `origin`. */
export const absoluteUrl = (origin: string, path: string): string => `${origin}${path}`;

/** A user's public page. */
export const userPagePath = (username: string): string => `/u/${encodeURIComponent(username)}`;
