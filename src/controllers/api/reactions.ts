import type { Request, Response } from 'express';
import type { ReactionInput } from '../../schemas/reaction.schema.ts';
import { reactToSpeedTest, type ReactionDeps } from '../../services/reactions.service.ts';

/** POST /api/runs/:id/react (key or session): `{ emoji }` sets, `{ emoji: null }` removes. */
export function reactionsController(deps: ReactionDeps) {
  return {
    async react(req: Request, res: Response) {
      const { emoji } = res.locals.body as ReactionInput;
      res.json(await reactToSpeedTest(deps, String(req.params.id), req.actor!.user.id, emoji));
    },
  };
}
