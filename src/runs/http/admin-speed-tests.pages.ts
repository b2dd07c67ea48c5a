import type { Request, Response } from 'express';
import type { z } from 'zod';
import type { AppContext } from '../../app-context.ts';
import { Conflict } from '../../lib/errors.ts';
import { parseOrThrow } from '../../lib/validation.ts';
import { ensureCsrfToken } from '../../middleware/csrf.ts';
import { isHtmxRequest } from '../../middleware/request-kind.ts';
import type { AdminActor } from '../../services/audit.service.ts';
import {
  ADMIN_SPEED_TESTS_PAGE_SIZE,
  adminSpeedTestsQuerySchema,
  rejectSpeedTestSchema,
  restoreSpeedTestSchema,
  speedTestStatuses,
  type AdminSpeedTestsQuery,
} from '../../schemas/admin.schema.ts';
import { parseForm, postedFields } from '../../web/forms.ts';
import { render } from '../../web/views.ts';

/** The list's own query string (only known, valid parameters), carried by row forms as `back`. */
function listQueryString(query: AdminSpeedTestsQuery): string {
  const search = new URLSearchParams();
  for (const key of ['model', 'user', 'hardware', 'status'] as const) if (query[key]) search.set(key, query[key]!);
  if (query.page > 1) search.set('page', String(query.page));
  return search.toString();
}

/** `back` as posted by a row form; anything unusable means the unfiltered list. */
function backQuery(back: unknown): AdminSpeedTestsQuery {
  const fallback = adminSpeedTestsQuerySchema.parse({});
  if (typeof back !== 'string' || back.length > 2000) return fallback;
  const parsed = adminSpeedTestsQuerySchema.safeParse(Object.fromEntries(new URLSearchParams(back)));
  return parsed.success ? parsed.data : fallback;
}

interface RowState {
  fieldErrors?: Record<string, string[]>;
  values?: Record<string, unknown>;
  message?: string;
}

/** Admins search speed-test runs of every status, reject them with a reason and restore them (/admin/runs). */
export function adminSpeedTestsController({ services }: AppContext) {
  const { moderation } = services;

  async function showList(
    req: Request,
    res: Response,
    query: AdminSpeedTestsQuery,
    rowStates: Record<string, RowState> = {},
    status = 200,
  ) {
    const { page, ...filters } = query;
    const { items, total } = await moderation.searchSpeedTests(filters, {
      limit: ADMIN_SPEED_TESTS_PAGE_SIZE,
      offset: (page - 1) * ADMIN_SPEED_TESTS_PAGE_SIZE,
    });
    ensureCsrfToken(req);
    const back = listQueryString(query);
    const withoutPage = listQueryString({ ...query, page: 1 });
    render(
      res,
      'pages/admin/speed-tests',
      {
        title: 'Runs',
        items,
        total,
        query,
        statuses: speedTestStatuses,
        page,
        pages: Math.max(1, Math.ceil(total / ADMIN_SPEED_TESTS_PAGE_SIZE)),
        back,
        pageHref: (n: number) => `/admin/runs?${withoutPage ? `${withoutPage}&` : ''}page=${n}`,
        rowStates,
      },
      status,
    );
  }

  /** htmx: the run's row (with any error in it); plain posts: the list again, or a 303 back to it. */
  async function answer(req: Request, res: Response, id: string, state?: RowState, status = 200) {
    const body = postedFields(req);
    if (isHtmxRequest(req)) {
      const item = await moderation.getSpeedTest(id);
      ensureCsrfToken(req);
      render(
        res,
        'partials/admin/speed-test-row',
        { item, csrfToken: req.session.csrfToken, back: listQueryString(backQuery(body.back)), state: state ?? {} },
        status,
      );
    } else if (state) {
      await showList(req, res, backQuery(body.back), { [id]: state }, status);
    } else {
      const back = listQueryString(backQuery(body.back));
      res.redirect(303, `/admin/runs${back ? `?${back}` : ''}`);
    }
  }

  /**
   * A moderation action from a row form: the run must exist (404 first), the reason must pass
   * the action's schema (the row shows the error), and a refusal for the run's status shows
   * in the row like a validation error.
   */
  function moderate<S extends z.ZodType<{ reason?: string }>>(
    schema: S,
    action: (actor: AdminActor, id: string, reason: z.output<S>['reason']) => Promise<void>,
  ) {
    return async (req: Request, res: Response) => {
      const id = String(req.params.id);
      await moderation.getSpeedTest(id);
      const body = postedFields(req);
      const parsed = parseForm(schema, { reason: body.reason });
      if (!parsed.ok) return answer(req, res, id, { fieldErrors: parsed.fieldErrors, values: { reason: body.reason } }, 400);
      try {
        await action(req.actor!.user, id, parsed.data.reason);
      } catch (error) {
        if (!(error instanceof Conflict)) throw error;
        return answer(req, res, id, { message: error.message }, error.status);
      }
      await answer(req, res, id);
    };
  }

  return {
    async list(req: Request, res: Response) {
      await showList(req, res, parseOrThrow(adminSpeedTestsQuerySchema, req.query));
    },
    reject: moderate(rejectSpeedTestSchema, (actor, id, reason) => moderation.rejectSpeedTest(actor, id, reason!)),
    restore: moderate(restoreSpeedTestSchema, (actor, id, reason) => moderation.restoreSpeedTest(actor, id, reason)),
  };
}
