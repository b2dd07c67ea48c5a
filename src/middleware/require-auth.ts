import type { Request, RequestHandler } from 'express';
import { Forbidden, HttpError, Unauthorized } from '../lib/errors.ts';
import { isApiRequest } from './request-kind.ts';

/** Pages send a signed-out visitor to the sign-in form and back; the API answers 401. */
class SignInRedirect extends HttpError {
  constructor(req: Request) {
    super(303, 'Sign in required', {}, { Location: `/signin?next=${encodeURIComponent(req.originalUrl)}` });
  }
}

function missingAuth(req: Request): HttpError {
  return isApiRequest(req) ? new Unauthorized() : new SignInRedirect(req);
}

export const SESSION_ONLY_MESSAGE = 'This endpoint needs a signed-in browser session; API keys are not accepted here';

/**
 * `key|session`: a Bearer key or a session; `session`: a browser session only
 * (key management and other account settings must not be reachable with a key).
 * A valid key on a session-only path is a 403 by default; `keyRefusal: 401` answers it
 * as credentials that do not count here (the saved-setups issue asks for that).
 */
export function requireAuth(mode: 'key|session' | 'session', options: { keyRefusal?: 401 | 403 } = {}): RequestHandler {
  return (req, _res, next) => {
    if (!req.actor) throw missingAuth(req);
    if (mode === 'session' && req.actor.via !== 'session') {
      throw options.keyRefusal === 401 ? new Unauthorized(SESSION_ONLY_MESSAGE) : new Forbidden(SESSION_ONLY_MESSAGE);
    }
    next();
  };
}

export const requireAdmin: RequestHandler = (req, _res, next) => {
  if (!req.actor) throw missingAuth(req);
  if (!req.actor.user.isAdmin) throw new Forbidden('Admins only');
  next();
};
