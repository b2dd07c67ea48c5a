import type { Request, Response } from 'express';
import type { AppContext } from '../../app-context.ts';
import { Conflict } from '../../lib/errors.ts';
import { ensureCsrfToken } from '../../middleware/csrf.ts';
import { isHtmxRequest } from '../../middleware/request-kind.ts';
import { createApiKeySchema } from '../../schemas/api-key.schema.ts';
import { API_KEYS_PER_ACCOUNT } from '../../constants.ts';
import type { CreatedApiKey } from '../../services/api-keys.service.ts';
import { parseForm, postedFields } from '../../web/forms.ts';
import { render } from '../../web/views.ts';

/** The form's date input gives a day; the key then lasts to the end of that UTC day. */
function expiresAtFromForm(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  return /^\d{4}-\d{2}-\d{2}$/.test(value.trim()) ? `${value.trim()}T23:59:59.999Z` : value.trim();
}

interface PanelState {
  created?: CreatedApiKey;
  values?: Record<string, unknown>;
  fieldErrors?: Record<string, string[]>;
  message?: string;
}

/** /settings/keys: create and revoke API keys in the browser. */
export function settingsKeysController({ services }: AppContext) {
  const { apiKeys } = services;

  /** The page, or for htmx only its key panel (form, new key, table). */
  async function showPanel(req: Request, res: Response, state: PanelState = {}, status = 200) {
    ensureCsrfToken(req);
    const data = {
      title: 'API keys',
      keys: await apiKeys.list(req.actor!.user.id),
      maxKeys: API_KEYS_PER_ACCOUNT,
      values: {},
      fieldErrors: {},
      ...state,
    };
    render(res, isHtmxRequest(req) ? 'partials/keys/panel' : 'pages/settings/keys', data, status);
  }

  return {
    async show(req: Request, res: Response) {
      await showPanel(req, res);
    },

    async create(req: Request, res: Response) {
      const body = postedFields(req);
      const values = { name: body.name, expiresAt: body.expiresAt };
      const parsed = parseForm(createApiKeySchema, { name: body.name, expiresAt: expiresAtFromForm(body.expiresAt) });
      if (!parsed.ok) return showPanel(req, res, { values, fieldErrors: parsed.fieldErrors }, 400);
      try {
        const created = await apiKeys.create(req.actor!.user.id, parsed.data);
        res.set('Cache-Control', 'no-store');
        await showPanel(req, res, { created }, 201);
      } catch (error) {
        if (!(error instanceof Conflict)) throw error;
        await showPanel(req, res, { values, message: error.message }, 409);
      }
    },

    async revoke(req: Request, res: Response) {
      await apiKeys.revoke(req.actor!.user.id, String(req.params.id));
      // htmx removes the row itself (hx-swap="delete"); without JavaScript, back to the list.
      if (isHtmxRequest(req)) res.status(200).end();
      else res.redirect(303, '/settings/keys');
    },
  };
}
