import type { RequestHandler } from 'express';
import { Unauthorized } from '../lib/errors.ts';
import type { Services } from '../services/index.ts';
import type { User } from '../services/users.service.ts';

export interface Actor {
  user: User;
  via: 'key' | 'session';
  apiKeyId?: string;
}

/**
 * Sets `req.actor`: a Bearer API key first, then the session. A present but unusable
 * Authorization header is a 401 on its own; it never falls back to the session cookie.
 */
export function authenticate({ apiKeys, users }: Pick<Services, 'apiKeys' | 'users'>): RequestHandler {
  return async (req, _res, next) => {
    const header = req.get('authorization');
    if (header !== undefined) {
      const match = /^Bearer +(\S+) *$/i.exec(header);
      if (!match) throw new Unauthorized();
      const { user, apiKeyId } = await apiKeys.authenticate(match[1]!);
      req.actor = { user, via: 'key', apiKeyId };
      return next();
    }
    const userId = req.session?.userId;
    if (userId) {
      const user = await users.findById(userId);
      if (user) req.actor = { user, via: 'session' };
      else delete req.session.userId; // the account is gone
    }
    next();
  };
}
