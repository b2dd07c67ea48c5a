import type { Request, Response } from 'express';
import type { AppContext } from '../../app-context.ts';
import { BadRequest } from '../../lib/errors.ts';
import { isHtmxRequest } from '../../middleware/request-kind.ts';
import { reactionFormSchema } from '../../schemas/reaction.schema.ts';
import { parseForm, postedFields } from '../../web/forms.ts';
import { safeNextPath } from '../../web/query.ts';
import { render } from '../../web/views.ts';

/**
 * POST /runs/:id/react from a reaction bar: htmx gets the bar back with the new counts;
 * a plain form post goes back (303) to the page it came from.
 */
export function reactionPagesController({ services }: AppContext) {
  return {
    async react(req: Request, res: Response) {
      const runId = String(req.params.id);
      const body = postedFields(req);
      const parsed = parseForm(reactionFormSchema, body);
      // The buttons only send valid values; a forged one is told what is allowed.
      if (!parsed.ok) throw new BadRequest([...Object.values(parsed.fieldErrors).flat(), ...parsed.formErrors].join(' '));
      const state = await services.reactions.reactToSpeedTest(runId, req.actor!.user.id, parsed.data.emoji);
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
