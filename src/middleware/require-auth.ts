import type { Request, RequestHandler } from 'express';
import { Forbidden, HttpError, Unauthorized } from '../lib/errors.ts';
import { messages } from '../messages.ts';
import { isApiRequest } from './request-kind.ts';

/**
 * The longest address kept for the way back after sign-in. Encoded again inside `next`, a
 * request line near Node's 16 KB header limit would make a Location header clients refuse
 * to parse; a longer address comes back without its query string, or not at all.
 */
const MAX_RETURN_ADDRESS = 2_000;

function signInLocation(req: Request): string {
  const back = [req.originalUrl, req.path].find((address) => address.length <= MAX_RETURN_ADDRESS);
  return back ? `/signin?next=${encodeURIComponent(back)}` : '/signin';
}

/** Pages send a signed-out visitor to the sign-in form and back; the API answers 401. */
class SignInRedirect extends HttpError {
  constructor(req: Request) {
    super(303, messages.signInRequired, {}, { Location: signInLocation(req) });
  }
}

function missingAuth(req: Request): HttpError {
  return isApiRequest(req) ? new Unauthorized() : new SignInRedirect(req);
}

/**
 * `key|session`: a Bearer key or a session; `session`: a browser session only (key
 * management and other account settings must not be reachable with a key): a valid key
 * there is a 403 saying so, on every session-only endpoint (DECISIONS.md "API keys").
 */
export function requireAuth(mode: 'key|session' | 'session'): RequestHandler {
  return (req, _res, next) => {
    if (!req.actor) throw missingAuth(req);
    if (mode === 'session' && req.actor.via !== 'session') throw new Forbidden(messages.sessionOnly);
    next();
  };
}

export const requireAdmin: RequestHandler = (req, _res, next) => {
  if (!req.actor) throw missingAuth(req);
  if (!req.actor.user.isAdmin) throw new Forbidden(messages.adminsOnly);
  next();
};
