import type { Request, Response } from 'express';
import type { Db } from '../../db/knex.ts';
import { Conflict } from '../../lib/errors.ts';
import { validationDetails } from '../../lib/validation.ts';
import { ensureCsrfToken } from '../../middleware/csrf.ts';
import { isHtmxRequest } from '../../middleware/request-kind.ts';
import { createApiKeySchema } from '../../schemas/api-key.schema.ts';
import { createApiKey, listApiKeys, MAX_LIVE_KEYS, revokeApiKey, type CreatedApiKey } from '../../services/api-keys.service.ts';
import { render } from '../../views.ts';
import { keyIdParam } from '../api/keys.ts';

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

export function settingsKeysController(db: Db) {
  /** The page, or for htmx only its key panel (form, new key, table). */
  async function showPanel(req: Request, res: Response, state: PanelState = {}, status = 200) {
    ensureCsrfToken(req);
    const data = {
      title: 'API keys',
      keys: await listApiKeys(db, req.actor!.user.id),
      maxKeys: MAX_LIVE_KEYS,
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
      const body = req.body as Record<string, unknown>;
      const values = { name: body.name, expiresAt: body.expiresAt };
      const parsed = createApiKeySchema.safeParse({ name: body.name, expiresAt: expiresAtFromForm(body.expiresAt) });
      if (!parsed.success) {
        return showPanel(req, res, { values, fieldErrors: validationDetails(parsed.error).fieldErrors }, 400);
      }
      try {
        const created = await createApiKey(db, req.actor!.user.id, parsed.data);
        res.set('Cache-Control', 'no-store');
        await showPanel(req, res, { created }, 201);
      } catch (error) {
        if (!(error instanceof Conflict)) throw error;
        await showPanel(req, res, { values, message: error.message }, 409);
      }
    },

    async revoke(req: Request, res: Response) {
      await revokeApiKey(db, req.actor!.user.id, keyIdParam(req));
      // htmx removes the row itself (hx-swap="delete"); without JavaScript, back to the list.
      if (isHtmxRequest(req)) res.status(200).end();
      else res.redirect(303, '/settings/keys');
    },
  };
}
