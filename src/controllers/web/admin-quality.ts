import type { Request, Response } from 'express';
import type { z } from 'zod';
import type { AppContext } from '../../app-context.ts';
import { Conflict } from '../../lib/errors.ts';
import { ensureCsrfToken } from '../../middleware/csrf.ts';
import { isHtmxRequest } from '../../middleware/request-kind.ts';
import { approveQualitySchema, QUALITY_NOTES_MAX_LENGTH, rejectQualitySchema, suiteOfficialSchema } from '../../schemas/admin.schema.ts';
import type { AdminActor } from '../../services/audit.service.ts';
import { DISAGREEMENT_FLAG, type ReviewKind } from '../../services/quality-review.service.ts';
import { parseForm, postedFields } from '../../web/forms.ts';
import { render } from '../../web/views.ts';

/** What a card shows after a refused action: the errors next to the posted form's field, or the refusal. */
interface CardState {
  /** The form that was posted: approve, reject or official. */
  action: ReviewAction;
  fieldErrors?: Record<string, string[]>;
  values?: Record<string, unknown>;
  message?: string;
}

/** An approved suite's official form posts from the small list (`layout=row`) or from its card. */
type Layout = 'card' | 'row';
const layoutOf = (req: Request): Layout => (postedFields(req).layout === 'row' ? 'row' : 'card');

type ReviewAction = 'approve' | 'reject' | 'official';

const stateKey = (kind: ReviewKind, id: string) => `${kind}-${id}`;

/**
 * /admin/quality: the queues of pending quality suites, datasets and runs, and the review
 * actions. With htmx an action answers the item's card (or list row) in its new state, or
 * with the error in it (an approved card says it left the queue and offers no Reject); a plain post answers a 303 back to the queue, or the page again with
 * the error (400 for the notes, 409 for a refused transition).
 */
export function adminQualityController({ services, profile }: AppContext) {
  const { qualityReview } = services;

  async function showQueues(req: Request, res: Response, states: Record<string, CardState> = {}, status = 200) {
    const queues = await qualityReview.queues();
    ensureCsrfToken(req);
    render(
      res,
      'pages/admin/quality',
      {
        title: 'Quality review',
        ...queues,
        datasetsReviewed: Boolean(profile.quality?.submissions),
        states,
        notesMax: QUALITY_NOTES_MAX_LENGTH,
        disagreementFlag: DISAGREEMENT_FLAG,
      },
      status,
    );
  }

  /** The fragment that shows one item (what htmx swaps in place). */
  async function fragment(kind: ReviewKind, id: string, layout: Layout): Promise<[string, Record<string, unknown>]> {
    if (kind === 'suite') {
      const suite = await qualityReview.suiteCard(id);
      return [layout === 'row' ? 'partials/admin/quality-suite-row' : 'partials/admin/quality-suite', { suite }];
    }
    if (kind === 'dataset') return ['partials/admin/quality-dataset', { dataset: await qualityReview.datasetCard(id) }];
    return ['partials/admin/quality-run', { item: await qualityReview.runCard(id), disagreementFlag: DISAGREEMENT_FLAG }];
  }

  async function answer(req: Request, res: Response, kind: ReviewKind, id: string, state?: CardState, status = 200) {
    if (isHtmxRequest(req)) {
      const [template, data] = await fragment(kind, id, layoutOf(req));
      ensureCsrfToken(req);
      render(res, template, { ...data, csrfToken: req.session.csrfToken, state: state ?? {}, notesMax: QUALITY_NOTES_MAX_LENGTH }, status);
    } else if (state) {
      await showQueues(req, res, { [stateKey(kind, id)]: state }, status);
    } else {
      res.redirect(303, '/admin/quality');
    }
  }

  /** Loads the item first, so an unknown (or withdrawn) one is a 404 before the form is read. */
  const exists: Record<ReviewKind, (id: string) => Promise<unknown>> = {
    suite: (id) => qualityReview.suiteCard(id),
    dataset: (id) => qualityReview.datasetCard(id),
    run: (id) => qualityReview.runCard(id),
  };

  /**
   * A review action from a card's form: the item must exist (404), the posted field must pass
   * the action's schema (the card shows the error, 400), and a refusal for the item's state
   * shows in the card the same way (409).
   */
  function act<S extends z.ZodType>(
    kind: ReviewKind,
    name: ReviewAction,
    field: string,
    schema: S,
    action: (actor: AdminActor, id: string, data: z.output<S>) => Promise<void>,
  ) {
    return async (req: Request, res: Response) => {
      const id = String(req.params.id);
      await exists[kind](id);
      const posted = postedFields(req)[field];
      const parsed = parseForm(schema, { [field]: posted });
      if (!parsed.ok)
        return answer(req, res, kind, id, { action: name, fieldErrors: parsed.fieldErrors, values: { [field]: posted } }, 400);
      try {
        await action(req.actor!.user, id, parsed.data);
      } catch (error) {
        if (!(error instanceof Conflict)) throw error;
        return answer(req, res, kind, id, { action: name, message: error.message, values: { [field]: posted } }, error.status);
      }
      await answer(req, res, kind, id);
    };
  }

  const approve = (kind: ReviewKind, action: (actor: AdminActor, id: string, notes?: string) => Promise<void>) =>
    act(kind, 'approve', 'notes', approveQualitySchema, (actor, id, data) => action(actor, id, data.notes));
  const reject = (kind: ReviewKind, action: (actor: AdminActor, id: string, notes: string) => Promise<void>) =>
    act(kind, 'reject', 'notes', rejectQualitySchema, (actor, id, data) => action(actor, id, data.notes));

  return {
    async queues(req: Request, res: Response) {
      await showQueues(req, res);
    },
    approveSuite: approve('suite', qualityReview.approveSuite),
    rejectSuite: reject('suite', qualityReview.rejectSuite),
    setSuiteOfficial: act('suite', 'official', 'official', suiteOfficialSchema, (actor, id, data) =>
      qualityReview.setSuiteOfficial(actor, id, data.official),
    ),
    approveDataset: approve('dataset', qualityReview.approveDataset),
    rejectDataset: reject('dataset', qualityReview.rejectDataset),
    approveRun: approve('run', qualityReview.approveRun),
    rejectRun: reject('run', qualityReview.rejectRun),
  };
}
