import type { Request, Response } from 'express';
import type { AppContext } from '../../app-context.ts';
import { RateLimited } from '../../lib/errors.ts';
import { parseOrThrow } from '../../lib/validation.ts';
import { ensureCsrfToken } from '../../middleware/csrf.ts';
import { changePasswordSchema, profileSettingsSchema } from '../../schemas/account.schema.ts';
import { PROFILE_RUNS_PAGE_SIZE, profileQuerySchema } from '../../schemas/profile.schema.ts';
import { WrongCurrentPassword } from '../../services/users.service.ts';
import { parseForm, postedFields } from '../../web/forms.ts';
import { render } from '../../web/views.ts';
import { facetNames, resultsListFacets } from '../../runs/facets.ts';

/** Which confirmation /settings/profile shows after a redirect. */
const SAVED_MESSAGES: Record<string, string> = {
  profile: 'Display name saved.',
  password: 'Password changed. Your other sessions were signed out; your API keys still work (revoke them below if needed).',
  keys: 'Every API key of yours is revoked; agents using one now get 401.',
};

interface SettingsState {
  profileValues?: Record<string, unknown>;
  profileErrors?: Record<string, string[]>;
  passwordErrors?: Record<string, string[]>;
  passwordMessage?: string;
}

/** Public profiles (/u/:username) and the signed-in user's own settings (/settings/profile). */
export function profilesController({ services, profile }: AppContext) {
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
      const result = await services.profiles.get(
        String(req.params.username),
        { limit: PROFILE_RUNS_PAGE_SIZE, offset: (page - 1) * PROFILE_RUNS_PAGE_SIZE },
        req.actor?.user.id ?? null,
      );
      render(res, 'pages/users/show', {
        title: `${result.user.displayName} (@${result.user.username})`,
        ...result,
        page,
        pages: Math.max(1, Math.ceil(result.counts.runs / PROFILE_RUNS_PAGE_SIZE)),
        resultsPath: profile.speedTests.resultsPath,
        listsByUsername: facetNames(resultsListFacets, profile).includes('username'),
      });
    },

    settings(req: Request, res: Response) {
      showSettings(req, res);
    },

    async updateProfile(req: Request, res: Response) {
      const body = postedFields(req);
      const parsed = parseForm(profileSettingsSchema, { displayName: body.displayName });
      if (!parsed.ok)
        return showSettings(req, res, { profileValues: { displayName: body.displayName }, profileErrors: parsed.fieldErrors }, 400);
      await services.users.updateDisplayName(req.actor!.user.id, parsed.data.displayName);
      res.redirect(303, '/settings/profile?saved=profile');
    },

    /** POST /settings/profile/keys/revoke-all (session and CSRF, audited). */
    async revokeAllKeys(req: Request, res: Response) {
      await services.apiKeys.revokeAll(req.actor!.user);
      res.redirect(303, '/settings/profile?saved=keys');
    },

    async changePassword(req: Request, res: Response) {
      const body = postedFields(req);
      const parsed = parseForm(changePasswordSchema, { currentPassword: body.currentPassword, newPassword: body.newPassword });
      if (!parsed.ok) return showSettings(req, res, { passwordErrors: parsed.fieldErrors }, 400);
      try {
        await services.users.changePassword(req.actor!.user.id, parsed.data, req.sessionID);
      } catch (error) {
        if (error instanceof RateLimited) {
          for (const [name, value] of Object.entries(error.headers)) res.set(name, value);
          return showSettings(req, res, { passwordMessage: error.message }, 429);
        }
        if (!(error instanceof WrongCurrentPassword)) throw error;
        return showSettings(req, res, { passwordErrors: { currentPassword: [error.message] } }, 400);
      }
      res.redirect(303, '/settings/profile?saved=password');
    },
  };
}
