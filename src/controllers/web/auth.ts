import type { Request, Response } from 'express';
import type { Db } from '../../db/knex.ts';
import { validationDetails } from '../../lib/validation.ts';
import { ensureCsrfToken } from '../../middleware/csrf.ts';
import { signInSchema, signUpSchema } from '../../schemas/account.schema.ts';
import { clearWindow, hitFixedWindow } from '../../services/rate-limit.service.ts';
import { createUser, UsernameTaken, verifyCredentials } from '../../services/users.service.ts';
import { render } from '../../views.ts';

export const SIGN_IN_LIMIT = { limit: 10, windowMs: 15 * 60_000 };
export const SIGN_UP_LIMIT = { limit: 30, windowMs: 60 * 60_000 };
const WRONG_CREDENTIALS = 'Wrong username or password.';

/** Only same-site paths: an open redirect after sign-in would help phishing. */
export function safeNextPath(next: unknown, fallback = '/'): string {
  return typeof next === 'string' && /^\/(?![/\\])/.test(next) ? next : fallback;
}

function minutesUntil(ms: number): string {
  const minutes = Math.max(1, Math.ceil(ms / 60_000));
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}

/** A fresh session id at sign-in (no fixation), with its own CSRF token. */
async function startSession(req: Request, userId: string): Promise<void> {
  await new Promise<void>((resolve, reject) => req.session.regenerate((err) => (err ? reject(err) : resolve())));
  req.session.userId = userId;
  ensureCsrfToken(req);
  await new Promise<void>((resolve, reject) => req.session.save((err) => (err ? reject(err) : resolve())));
}

type FormState = { values?: Record<string, unknown>; fieldErrors?: Record<string, string[]>; message?: string; next?: string };

function showForm(req: Request, res: Response, page: 'signin' | 'signup', state: FormState, status = 200) {
  ensureCsrfToken(req);
  render(
    res,
    `pages/auth/${page}`,
    { values: {}, fieldErrors: {}, next: safeNextPath(state.next ?? req.query.next), ...state },
    status,
  );
}

export function authController(db: Db) {
  return {
    signUpForm(req: Request, res: Response) {
      if (req.actor) return res.redirect(303, '/');
      showForm(req, res, 'signup', {});
    },

    async signUp(req: Request, res: Response) {
      const body = req.body as Record<string, unknown>;
      const values = { username: body.username, displayName: body.displayName };
      const next = safeNextPath(body.next);
      const window = await hitFixedWindow(db, { bucket: 'signup', key: req.ip ?? 'unknown', ...SIGN_UP_LIMIT });
      if (!window.allowed) {
        res.set('Retry-After', String(Math.ceil(window.retryAfterMs / 1000)));
        return showForm(req, res, 'signup', { values, next, message: `Too many sign-ups from your address. Try again in ${minutesUntil(window.retryAfterMs)}.` }, 429);
      }
      const parsed = signUpSchema.safeParse(body);
      if (!parsed.success) {
        return showForm(req, res, 'signup', { values, next, fieldErrors: validationDetails(parsed.error).fieldErrors }, 400);
      }
      try {
        const user = await createUser(db, parsed.data);
        await startSession(req, user.id);
        res.redirect(303, next);
      } catch (error) {
        if (!(error instanceof UsernameTaken)) throw error;
        showForm(req, res, 'signup', { values, next, fieldErrors: { username: [error.message] } }, 409);
      }
    },

    signInForm(req: Request, res: Response) {
      if (req.actor) return res.redirect(303, safeNextPath(req.query.next));
      showForm(req, res, 'signin', {});
    },

    async signIn(req: Request, res: Response) {
      const body = req.body as Record<string, unknown>;
      const values = { username: body.username };
      const next = safeNextPath(body.next);
      const parsed = signInSchema.safeParse(body);
      if (!parsed.success) {
        return showForm(req, res, 'signin', { values, next, fieldErrors: validationDetails(parsed.error).fieldErrors }, 400);
      }
      const limiterKey = `${parsed.data.username.toLowerCase()}|${req.ip ?? 'unknown'}`;
      const window = await hitFixedWindow(db, { bucket: 'signin', key: limiterKey, ...SIGN_IN_LIMIT });
      if (!window.allowed) {
        res.set('Retry-After', String(Math.ceil(window.retryAfterMs / 1000)));
        return showForm(req, res, 'signin', { values, next, message: `Too many sign-in attempts. Try again in ${minutesUntil(window.retryAfterMs)}.` }, 429);
      }
      const user = await verifyCredentials(db, parsed.data.username, parsed.data.password);
      if (!user) return showForm(req, res, 'signin', { values, next, message: WRONG_CREDENTIALS }, 401);
      await clearWindow(db, 'signin', limiterKey);
      await startSession(req, user.id);
      res.redirect(303, next);
    },

    async signOut(req: Request, res: Response) {
      await new Promise<void>((resolve, reject) => req.session.destroy((err) => (err ? reject(err) : resolve())));
      res.clearCookie('bh.sid', { path: '/' });
      res.redirect(303, '/');
    },
  };
}
