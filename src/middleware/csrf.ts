import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { Forbidden } from '../lib/errors.ts';
import { messages } from '../messages.ts';
import { isApiRequest } from './request-kind.ts';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The session's CSRF token, created on first need. Pages with forms ask for it, so an
 * anonymous visitor who only reads pages never gets a session row written.
 */
export function ensureCsrfToken(req: Request): string {
  req.session.csrfToken ??= randomBytes(32).toString('base64url');
  return req.session.csrfToken;
}

function tokensMatch(expected: string | undefined, given: unknown): boolean {
  if (!expected || typeof given !== 'string') return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Unsafe requests that rely on the session cookie must carry the session's token
 * (`_csrf` form field or `X-CSRF-Token` header). Bearer-key requests carry no ambient
 * credential, so they need none; anonymous API calls fall through to their 401.
 */
export const verifyCsrf: RequestHandler = (req, _res, next) => {
  if (SAFE_METHODS.has(req.method) || req.actor?.via === 'key') return next();
  const relyOnSession = req.actor?.via === 'session' || !isApiRequest(req);
  if (!relyOnSession) return next();
  const given = req.get('X-CSRF-Token') ?? (req.body as Record<string, unknown> | undefined)?._csrf;
  if (!tokensMatch(req.session?.csrfToken, given)) throw new Forbidden(messages.invalidCsrf);
  next();
};
