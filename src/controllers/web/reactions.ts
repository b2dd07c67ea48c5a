import type { Request, Response } from 'express';
import { BadRequest } from '../../lib/errors.ts';
import { validationDetails } from '../../lib/validation.ts';
import { isHtmxRequest } from '../../middleware/request-kind.ts';
import { reactionFormSchema } from '../../schemas/reaction.schema.ts';
import { reactToSpeedTest, type ReactionDeps } from '../../services/reactions.service.ts';
import { render } from '../../views.ts';
import { safeNextPath } from './auth.ts';

/**
 * POST /runs/:id/react from a reaction bar: htmx gets the bar back with the new counts;
 * a plain form post goes back (303) to the page it came from.
 */
export function reactionPagesController(deps: ReactionDeps) {
  return {
    async react(req: Request, res: Response) {
      const runId = String(req.params.id);
      const body = (req.body ?? {}) as Record<string, unknown>;
      const parsed = reactionFormSchema.safeParse(body);
      if (!parsed.success) {
        // The buttons only send valid values; a forged one is told what is allowed.
        const { fieldErrors, formErrors } = validationDetails(parsed.error);
        throw new BadRequest([...Object.values(fieldErrors).flat(), ...formErrors].join(' '));
      }
      const state = await reactToSpeedTest(deps, runId, req.actor!.user.id, parsed.data.emoji);
      const back = safeNextPath(body.back, `/runs/${runId}`);
      if (!isHtmxRequest(req)) return res.redirect(303, back);
      render(res, 'partials/reactions/bar', {
        runId,
        counts: state.reactionCounts,
        myEmoji: state.myEmoji,
        reactor: { signedIn: true, csrfToken: req.session.csrfToken, back },
      });
    },
  };
}
