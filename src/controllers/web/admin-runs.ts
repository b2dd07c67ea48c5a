import type { Request, Response } from 'express';
import { Conflict, NotFound } from '../../lib/errors.ts';
import { isUuid } from '../../lib/ids.ts';
import { parseOrThrow, validationDetails } from '../../lib/validation.ts';
import { ensureCsrfToken } from '../../middleware/csrf.ts';
import { isHtmxRequest } from '../../middleware/request-kind.ts';
import { ADMIN_RUNS_PAGE_SIZE, adminRunsQuerySchema, rejectRunSchema, restoreRunSchema, runStatuses, type AdminRunsQuery } from '../../schemas/admin.schema.ts';
import { getRunForAdmin, rejectRun, restoreRun, searchRunsForAdmin, type ModerationDeps } from '../../services/moderation.service.ts';
import { render } from '../../views.ts';

/** The list's own query string (only known, valid parameters), carried by row forms as `back`. */
function listQueryString(query: AdminRunsQuery): string {
  const search = new URLSearchParams();
  for (const key of ['model', 'user', 'hardware', 'status'] as const) if (query[key]) search.set(key, query[key]!);
  if (query.page > 1) search.set('page', String(query.page));
  return search.toString();
}

/** `back` as posted by a row form; anything unusable means the unfiltered list. */
function backQuery(back: unknown): AdminRunsQuery {
  const fallback = adminRunsQuerySchema.parse({});
  if (typeof back !== 'string' || back.length > 2000) return fallback;
  const parsed = adminRunsQuerySchema.safeParse(Object.fromEntries(new URLSearchParams(back)));
  return parsed.success ? parsed.data : fallback;
}

function runIdParam(req: Request): string {
  const id = req.params.id;
  if (!isUuid(id)) throw new NotFound('Speed-test run not found');
  return id;
}

interface RowState {
  fieldErrors?: Record<string, string[]>;
  values?: Record<string, unknown>;
  message?: string;
}

/** Admins search runs of every status, reject them with a reason and restore them. */
export function adminRunsController(deps: ModerationDeps) {
  async function showList(req: Request, res: Response, query: AdminRunsQuery, rowStates: Record<string, RowState> = {}, status = 200) {
    const { page, ...filters } = query;
    const { items, total } = await searchRunsForAdmin(deps, filters, { limit: ADMIN_RUNS_PAGE_SIZE, offset: (page - 1) * ADMIN_RUNS_PAGE_SIZE });
    ensureCsrfToken(req);
    const back = listQueryString(query);
    const withoutPage = listQueryString({ ...query, page: 1 });
    render(
      res,
      'pages/admin/runs',
      {
        title: 'Runs',
        items,
        total,
        query,
        statuses: runStatuses,
        page,
        pages: Math.max(1, Math.ceil(total / ADMIN_RUNS_PAGE_SIZE)),
        back,
        pageHref: (n: number) => `/admin/runs?${withoutPage ? `${withoutPage}&` : ''}page=${n}`,
        rowStates,
      },
      status,
    );
  }

  /** htmx: the run's row (with any error in it); plain posts: the list again, or a 303 back to it. */
  async function answer(req: Request, res: Response, id: string, state?: RowState, status = 200) {
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (isHtmxRequest(req)) {
      const item = await getRunForAdmin(deps, id);
      ensureCsrfToken(req);
      render(res, 'partials/admin/run-row', { item, csrfToken: req.session.csrfToken, back: listQueryString(backQuery(body.back)), state: state ?? {} }, status);
    } else if (state) {
      await showList(req, res, backQuery(body.back), { [id]: state }, status);
    } else {
      const back = listQueryString(backQuery(body.back));
      res.redirect(303, `/admin/runs${back ? `?${back}` : ''}`);
    }
  }

  /** Runs the action; a refusal (wrong status) shows like a validation error, in the row. */
  async function act(req: Request, res: Response, id: string, action: () => Promise<void>) {
    try {
      await action();
    } catch (error) {
      if (!(error instanceof Conflict)) throw error;
      return answer(req, res, id, { message: error.message }, error.status);
    }
    await answer(req, res, id);
  }

  return {
    async list(req: Request, res: Response) {
      await showList(req, res, parseOrThrow(adminRunsQuerySchema, req.query));
    },

    async reject(req: Request, res: Response) {
      const id = runIdParam(req);
      await getRunForAdmin(deps, id); // 404 before anything else
      const body = (req.body ?? {}) as Record<string, unknown>;
      const parsed = rejectRunSchema.safeParse({ reason: body.reason });
      if (!parsed.success) {
        return answer(req, res, id, { fieldErrors: validationDetails(parsed.error).fieldErrors, values: { reason: body.reason } }, 400);
      }
      await act(req, res, id, () => rejectRun(deps.db, req.actor!.user, id, parsed.data.reason));
    },

    async restore(req: Request, res: Response) {
      const id = runIdParam(req);
      await getRunForAdmin(deps, id);
      const body = (req.body ?? {}) as Record<string, unknown>;
      const parsed = restoreRunSchema.safeParse({ reason: body.reason });
      if (!parsed.success) {
        return answer(req, res, id, { fieldErrors: validationDetails(parsed.error).fieldErrors, values: { reason: body.reason } }, 400);
      }
      await act(req, res, id, () => restoreRun(deps.db, req.actor!.user, id, parsed.data.reason));
    },
  };
}
