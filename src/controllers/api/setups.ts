import type { Request, Response } from 'express';
import type { SetupCreateInput, SetupPatchInput } from '../../schemas/setup.schema.ts';
import { createSetup, deleteSetup, getSetup, listSetups, updateSetup, type SetupDeps } from '../../services/setups.service.ts';

/** /api/setups: the caller's own saved setups (session only; another user's id is a 404). */
export function setupsController(deps: SetupDeps) {
  return {
    async list(req: Request, res: Response) {
      res.json(await listSetups(deps, req.actor!.user.id));
    },
    async create(req: Request, res: Response) {
      const setup = await createSetup(deps, req.actor!.user.id, res.locals.body as SetupCreateInput);
      res.status(201).location(`/api/setups/${setup.id}`).json(setup);
    },
    async show(req: Request, res: Response) {
      res.json(await getSetup(deps, req.actor!.user.id, String(req.params.id)));
    },
    async update(req: Request, res: Response) {
      res.json(await updateSetup(deps, req.actor!.user.id, String(req.params.id), res.locals.body as SetupPatchInput));
    },
    async remove(req: Request, res: Response) {
      await deleteSetup(deps, req.actor!.user.id, String(req.params.id));
      res.status(204).end();
    },
  };
}
