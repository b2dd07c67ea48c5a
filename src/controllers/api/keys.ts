import type { Request, Response } from 'express';
import type { Db } from '../../db/knex.ts';
import { NotFound } from '../../lib/errors.ts';
import { isUuid } from '../../lib/ids.ts';
import type { CreateApiKeyInput } from '../../schemas/api-key.schema.ts';
import { createApiKey, listApiKeys, revokeApiKey } from '../../services/api-keys.service.ts';

/** An id that cannot exist is answered like one that belongs to someone else: 404. */
export function keyIdParam(req: Request): string {
  const id = req.params.id;
  if (!isUuid(id)) throw new NotFound('API key not found');
  return id;
}

export function apiKeysController(db: Db) {
  return {
    async list(req: Request, res: Response) {
      res.json(await listApiKeys(db, req.actor!.user.id));
    },
    async create(req: Request, res: Response) {
      const created = await createApiKey(db, req.actor!.user.id, res.locals.body as CreateApiKeyInput);
      res.status(201).set('Cache-Control', 'no-store').json(created);
    },
    async revoke(req: Request, res: Response) {
      await revokeApiKey(db, req.actor!.user.id, keyIdParam(req));
      res.json({ ok: true });
    },
  };
}
