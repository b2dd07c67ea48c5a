import type { Request, Response } from 'express';
import type { AppContext } from '../../app-context.ts';
import { Conflict, RateLimited, Unauthorized, type HttpError } from '../../lib/errors.ts';
import { ensureCsrfToken } from '../../middleware/csrf.ts';
import { signInSchema, signUpSchema } from '../../schemas/account.schema.ts';
import { parseForm, postedFields } from '../../web/forms.ts';
import { safeNextPath } from '../../web/query.ts';
import { render } from '../../web/views.ts';

/** A fresh session id at sign-in (no fixation), with its own CSRF token. */
async function startSession(req: Request, userId: string, { newAccount = false } = {}): Promise<void> {
  await new Promise<void>((resolve, reject) => req.session.regenerate((err) => (err ? reject(err) : resolve())));
  req.session.userId = userId;
  if (newAccount) req.session.firstSteps = true;
  ensureCsrfToken(req);
  await new Promise<void>((resolve, reject) => req.session.save((err) => (err ? reject(err) : resolve())));
}

type FormState = { values?: Record<string, unknown>; fieldErrors?: Record<string, string[]>; message?: string; next?: string };

function showForm(req: Request, res: Response, page: 'signin' | 'signup', state: FormState, status = 200) {
  ensureCsrfToken(req);
  render(res, `pages/auth/${page}`, { values: {}, fieldErrors: {}, next: safeNextPath(state.next ?? req.query.next), ...state }, status);
}

/** A refusal the form shows as its message, with the error's status and headers (Retry-After). */
function showRefusal(req: Request, res: Response, page: 'signin' | 'signup', state: FormState, error: HttpError) {
  for (const [name, value] of Object.entries(error.headers)) res.set(name, value);
  showForm(req, res, page, { ...state, message: error.message }, error.status);
}

/** Sign-up, sign-in and sign-out forms; the throttles and credential checks are the users service's. */
export function authController({ services }: AppContext) {
  const { users } = services;
  return {
    signUpForm(req: Request, res: Response) {
      if (req.actor) return res.redirect(303, '/');
      showForm(req, res, 'signup', {});
    },

    async signUp(req: Request, res: Response) {
      const body = postedFields(req);
      const state = { values: { username: body.username, displayName: body.displayName }, next: safeNextPath(body.next) };
      try {
        // Every attempt counts against the address, a malformed one too.
        await users.admitSignUp(req.ip ?? 'unknown');
        const parsed = parseForm(signUpSchema, body);
        if (!parsed.ok) return showForm(req, res, 'signup', { ...state, fieldErrors: parsed.fieldErrors }, 400);
        const user = await users.create(parsed.data);
        await startSession(req, user.id, { newAccount: true });
        res.redirect(303, state.next);
      } catch (error) {
        if (error instanceof RateLimited) return showRefusal(req, res, 'signup', state, error);
        if (!(error instanceof Conflict)) throw error;
        showForm(req, res, 'signup', { ...state, fieldErrors: { username: [error.message] } }, 409);
      }
    },

    signInForm(req: Request, res: Response) {
      if (req.actor) return res.redirect(303, safeNextPath(req.query.next));
      showForm(req, res, 'signin', {});
    },

    async signIn(req: Request, res: Response) {
      const body = postedFields(req);
      const state = { values: { username: body.username }, next: safeNextPath(body.next) };
      const parsed = parseForm(signInSchema, body);
      if (!parsed.ok) return showForm(req, res, 'signin', { ...state, fieldErrors: parsed.fieldErrors }, 400);
      try {
        const user = await users.signIn(parsed.data.username, parsed.data.password, req.ip ?? 'unknown');
        await startSession(req, user.id);
        res.redirect(303, state.next);
      } catch (error) {
        if (!(error instanceof RateLimited || error instanceof Unauthorized)) throw error;
        showRefusal(req, res, 'signin', state, error);
      }
    },

    async signOut(req: Request, res: Response) {
      await new Promise<void>((resolve, reject) => req.session.destroy((err) => (err ? reject(err) : resolve())));
      res.clearCookie('bh.sid', { path: '/' });
      res.redirect(303, '/');
    },
  };
}
