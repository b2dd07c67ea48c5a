import type { Request, Response } from 'express';
import type { AppContext } from '../../app-context.ts';
import type { ReactionEmoji } from '../../constants.ts';
import { BadRequest } from '../../lib/errors.ts';
import { isHtmxRequest } from '../../middleware/request-kind.ts';
import { reactionFormSchema } from '../../schemas/reaction.schema.ts';
import type { ReactionState } from '../../services/reactions.service.ts';
import { parseForm, postedFields } from '../../web/forms.ts';
import { safeNextPath } from '../../web/query.ts';
import { render } from '../../web/views.ts';

/**
 * POST /runs/:id/react (a speed test) and /evals/runs/:id/react (a quality run) from a
 * reaction bar: htmx gets the bar back with the new counts; a plain form post goes back
 * (303) to the page it came from.
 */
export function reactionPagesController({ services }: AppContext) {
  function reactVia(
    react: (runId: string, userId: string, emoji: ReactionEmoji | null) => Promise<ReactionState>,
    pagePath: (runId: string) => string,
  ) {
    return async (req: Request, res: Response) => {
      const runId = String(req.params.id);
      const body = postedFields(req);
      const parsed = parseForm(reactionFormSchema, body);
      // The buttons only send valid values; a forged one is told what is allowed.
      if (!parsed.ok) throw new BadRequest([...Object.values(parsed.fieldErrors).flat(), ...parsed.formErrors].join(' '));
      const state = await react(runId, req.actor!.user.id, parsed.data.emoji);
      const back = safeNextPath(body.back, pagePath(runId));
      if (!isHtmxRequest(req)) return res.redirect(303, back);
      render(res, 'partials/reactions/bar', {
        runId,
        action: `${pagePath(runId)}/react`,
        counts: state.reactionCounts,
        myEmoji: state.myEmoji,
        reactor: { signedIn: true, csrfToken: req.session.csrfToken, back },
        // A table row's bar stays compact after a click.
        compact: body.compact === '1',
      });
    };
  }

  return {
    react: reactVia(services.reactions.reactToSpeedTest, (runId) => `/runs/${runId}`),
    reactToQualityRun: reactVia(services.reactions.reactToQualityRun, (runId) => `/evals/runs/${runId}`),
  };
}
