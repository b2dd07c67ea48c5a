import type { Request, Response } from 'express';
import { ValidationFailed } from '../../lib/errors.ts';
import { parseOrThrow } from '../../lib/validation.ts';
import { isHtmxRequest } from '../../middleware/request-kind.ts';
import { buckets, hwClasses } from '../../revisions.ts';
import { leaderboardQuerySchema, leaderboardSorts, type LeaderboardQuery } from '../../schemas/leaderboard-query.schema.ts';
import { leaderboardPage, leaderboardRuns, type LeaderboardDeps } from '../../services/leaderboard.service.ts';
import { render } from '../../views.ts';
import { speedVersusMemoryChart } from '../../lib/run-charts.ts';

const CHART_RUNS = 200;

/** A GET form sends every field; an empty one means "not filtered". */
export function filledParams(query: Request['query']): Record<string, unknown> {
  return Object.fromEntries(Object.entries(query).filter(([key, value]) => value !== '' && key !== 'format'));
}

/** The query string of the current filters, for links that keep them (pagination, export). */
export function queryString(params: Record<string, unknown>, overrides: Record<string, unknown> = {}): string {
  const merged = { ...params, ...overrides };
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(merged)) {
    if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
  }
  return search.toString();
}

/**
 * GET forms send empty fields; the address people share should not carry them. Plain
 * requests are redirected to the clean URL (true when answered); htmx gets it as the URL
 * to push.
 */
export function cleanFilterUrl(req: Request, res: Response, params: Record<string, unknown>): boolean {
  if (Object.keys(req.query).length === Object.keys(params).length) return false;
  const clean = `${req.path}${Object.keys(params).length ? `?${queryString(params)}` : ''}`;
  if (isHtmxRequest(req)) {
    res.set('HX-Push-Url', clean);
    return false;
  }
  res.redirect(302, clean);
  return true;
}

export function leaderboardPagesController(deps: LeaderboardDeps) {
  const { profile } = deps;
  const options = {
    hwClasses,
    memTiers: buckets.memTier,
    paramSizes: buckets.paramSize.map((b) => b.bucket),
    contextLens: buckets.contextLen,
    oses: buckets.os,
    engines: profile.engines,
    sorts: leaderboardSorts,
    extended: profile.features.extendedLeaderboardFilters,
  };

  return {
    async show(req: Request, res: Response) {
      const params = filledParams(req.query);
      if (cleanFilterUrl(req, res, params)) return;
      let page: { rows: ReturnType<typeof leaderboardRuns>; total: number; limit: number; offset: number } | undefined;
      let chart: string | undefined;
      let fieldErrors: Record<string, string[]> = {};
      let status = 200;
      try {
        const query: LeaderboardQuery = parseOrThrow(leaderboardQuerySchema(profile), params);
        // The chart shows the top of the filtered set, whatever page is being read.
        const [current, top] = await Promise.all([
          leaderboardPage(deps, query, { viewerId: req.actor?.user.id ?? null }),
          query.offset === 0 && query.limit >= CHART_RUNS ? undefined : leaderboardPage(deps, { ...query, offset: 0, limit: CHART_RUNS }, { withTotal: false }),
        ]);
        page = { ...current, rows: leaderboardRuns(profile, current) };
        chart = speedVersusMemoryChart(top ? leaderboardRuns(profile, top) : page.rows.slice(0, CHART_RUNS), 'the filtered leaderboard');
      } catch (error) {
        if (!(error instanceof ValidationFailed)) throw error;
        fieldErrors = error.details.fieldErrors;
        status = 400;
      }
      const data = {
        title: 'Leaderboard',
        params,
        page,
        chart,
        fieldErrors,
        options,
        queryString,
        exportHref: `/api/leaderboard?${queryString(params, { format: 'csv', limit: undefined, offset: undefined })}`,
      };
      render(res, isHtmxRequest(req) ? 'partials/leaderboard/results' : 'pages/leaderboard', data, status);
    },
  };
}
