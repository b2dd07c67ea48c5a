import type { Request, Response } from 'express';
import type { Db } from '../../db/knex.ts';
import { parseOrThrow, validationDetails } from '../../lib/validation.ts';
import { ensureCsrfToken } from '../../middleware/csrf.ts';
import type { RevisionProfile } from '../../revisions.ts';
import { changePasswordSchema, profileSettingsSchema } from '../../schemas/account.schema.ts';
import { PROFILE_RUNS_PAGE_SIZE, profileQuerySchema } from '../../schemas/profile.schema.ts';
import { getUserProfile } from '../../services/profiles.service.ts';
import { hitFixedWindow } from '../../services/rate-limit.service.ts';
import { changePassword, updateDisplayName, WrongCurrentPassword } from '../../services/users.service.ts';
import { render } from '../../views.ts';
import { SIGN_IN_LIMIT } from './auth.ts';

/** Which confirmation /settings/profile shows after a redirect. */
const SAVED_MESSAGES: Record<string, string> = {
  profile: 'Display name saved.',
  password: 'Password changed. Your other sessions were signed out.',
};

interface SettingsState {
  profileValues?: Record<string, unknown>;
  profileErrors?: Record<string, string[]>;
  passwordErrors?: Record<string, string[]>;
  passwordMessage?: string;
}

/** Public profiles (/u/:username) and the signed-in user's own settings (/settings/profile). */
export function profilesController({ db, profile }: { db: Db; profile: RevisionProfile }) {
  function showSettings(req: Request, res: Response, state: SettingsState = {}, status = 200) {
    ensureCsrfToken(req);
    const user = req.actor!.user;
    const saved = typeof req.query.saved === 'string' ? SAVED_MESSAGES[req.query.saved] : undefined;
    render(
      res,
      'pages/settings/profile',
      {
        title: 'Profile settings',
        user,
        saved: status === 200 ? saved : undefined,
        profileValues: state.profileValues ?? { displayName: user.displayName },
        profileErrors: state.profileErrors ?? {},
        passwordErrors: state.passwordErrors ?? {},
        passwordMessage: state.passwordMessage,
      },
      status,
    );
  }

  return {
    async show(req: Request, res: Response) {
      const { page } = parseOrThrow(profileQuerySchema, req.query);
      const result = await getUserProfile({ db, profile }, String(req.params.username), {
        limit: PROFILE_RUNS_PAGE_SIZE,
        offset: (page - 1) * PROFILE_RUNS_PAGE_SIZE,
      }, req.actor?.user.id ?? null);
      render(res, 'pages/users/show', {
        title: `${result.user.displayName} (@${result.user.username})`,
        ...result,
        page,
        pages: Math.max(1, Math.ceil(result.counts.runs / PROFILE_RUNS_PAGE_SIZE)),
        resultsPath: profile.resultsPath,
        listsByUsername: profile.resultsListParams.includes('username'),
      });
    },

    settings(req: Request, res: Response) {
      showSettings(req, res);
    },

    async updateProfile(req: Request, res: Response) {
      const body = (req.body ?? {}) as Record<string, unknown>;
      const parsed = profileSettingsSchema.safeParse({ displayName: body.displayName });
      if (!parsed.success) {
        return showSettings(req, res, { profileValues: { displayName: body.displayName }, profileErrors: validationDetails(parsed.error).fieldErrors }, 400);
      }
      await updateDisplayName(db, req.actor!.user.id, parsed.data.displayName);
      res.redirect(303, '/settings/profile?saved=profile');
    },

    async changePassword(req: Request, res: Response) {
      const body = (req.body ?? {}) as Record<string, unknown>;
      const parsed = changePasswordSchema.safeParse({ currentPassword: body.currentPassword, newPassword: body.newPassword });
      if (!parsed.success) {
        return showSettings(req, res, { passwordErrors: validationDetails(parsed.error).fieldErrors }, 400);
      }
      // Guessing the current password with a borrowed session is as slow as at sign-in.
      const window = await hitFixedWindow(db, { bucket: 'password', key: req.actor!.user.id, ...SIGN_IN_LIMIT });
      if (!window.allowed) {
        res.set('Retry-After', String(Math.ceil(window.retryAfterMs / 1000)));
        return showSettings(req, res, { passwordMessage: 'Too many attempts. Try again later.' }, 429);
      }
      try {
        await changePassword(db, req.actor!.user.id, parsed.data, req.sessionID);
      } catch (error) {
        if (!(error instanceof WrongCurrentPassword)) throw error;
        return showSettings(req, res, { passwordErrors: { currentPassword: [error.message] } }, 400);
      }
      res.redirect(303, '/settings/profile?saved=password');
    },
  };
}
