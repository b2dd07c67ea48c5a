import type { Request, Response } from 'express';
import type { AppContext } from '../../app-context.ts';
import { ValidationFailed } from '../../lib/errors.ts';
import { parseOrThrow } from '../../lib/validation.ts';
import { isHtmxRequest } from '../../middleware/request-kind.ts';
import { buckets, hwClasses } from '../../constants.ts';
import { leaderboardQuerySchema, leaderboardSorts, type LeaderboardQuery } from '../../schemas/leaderboard-query.schema.ts';
import { leaderboardRuns } from '../../services/leaderboard.service.ts';
import { speedVersusMemoryChart } from '../../web/charts/speed-test-charts.ts';
import { leaderboardPageView } from '../../web/leaderboard-view.ts';
import { cleanFilterUrl, filledParams, queryString } from '../../web/query.ts';
import { render } from '../../web/views.ts';

const CHART_RUNS = 200;

/** `/`: the leaderboard page with every filter, its chart, paging and the CSV export link. */
export function leaderboardPagesController({ services, profile }: AppContext) {
  const options = {
    hwClasses,
    memTiers: buckets.memTier,
    paramSizes: buckets.paramSize.map((b) => b.bucket),
    contextLens: buckets.contextLen,
    oses: buckets.os,
    engines: profile.speedTests.engines,
    sorts: leaderboardSorts,
    extended: profile.speedTests.leaderboard.extendedFilters,
    streamsCounted: profile.speedTests.batchSizeTimesConcurrency,
  };

  return {
    async show(req: Request, res: Response) {
      const params = filledParams(req.query);
      if (cleanFilterUrl(req, res, params)) return;
      const { view, apiParams } = leaderboardPageView(profile, params);
      let page: { rows: ReturnType<typeof leaderboardRuns>; total: number; limit: number; offset: number } | undefined;
      let chart: string | undefined;
      let fieldErrors: Record<string, string[]> = {};
      let status = 200;
      try {
        const query: LeaderboardQuery = parseOrThrow(leaderboardQuerySchema(profile), apiParams);
        // The chart shows the top of the filtered set, whatever page is being read.
        const [current, top] = await Promise.all([
          services.leaderboard.page(query, { viewerId: req.actor?.user.id ?? null }),
          query.offset === 0 && query.limit >= CHART_RUNS ? undefined : services.leaderboard.page({ ...query, offset: 0, limit: CHART_RUNS }, { withTotal: false }),
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
        view,
        exportHref: `/api/leaderboard?${queryString(apiParams, { format: 'csv', limit: undefined, offset: undefined })}`,
      };
      render(res, isHtmxRequest(req) ? 'partials/leaderboard/results' : 'pages/leaderboard', data, status);
    },
  };
}
