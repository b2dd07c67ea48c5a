import type { Request, Response } from 'express';
import type { AppContext } from '../../app-context.ts';
import { BadRequest, ValidationFailed } from '../../lib/errors.ts';
import { hardwareLabel } from '../../lib/labels.ts';
import { parseOrThrow } from '../../lib/validation.ts';
import { isHtmxRequest } from '../../middleware/request-kind.ts';
import { ARTIFACTS_PER_PAGE, runPageQuerySchema, SUITE_RUNS_PAGE_SIZE, suitePageQuerySchema } from '../../schemas/quality-pages.schema.ts';
import { suiteListQuerySchema, suiteRunners } from '../../schemas/quality.schema.ts';
import { SUITE_CHART_RUNS, withUncertainty } from '../../services/quality-pages.service.ts';
import { qualityVersusSpeedChart, scoreText } from '../../web/charts/quality-charts.ts';
import { HW_CLASS_OPTIONS } from '../../web/forms.ts';
import { cleanFilterUrl, filledParams, queryString } from '../../web/query.ts';
import { render } from '../../web/views.ts';

/** Parses a page's query; a bad one gives its field errors for the form instead (answered 400). */
function parseFilters<T>(parse: () => T): { query?: T; fieldErrors: Record<string, string[]> } {
  try {
    return { query: parse(), fieldErrors: {} };
  } catch (error) {
    if (!(error instanceof ValidationFailed)) throw error;
    return { fieldErrors: error.details.fieldErrors };
  }
}

/** The public quality pages: the suite catalogue, one suite with its leaderboard and chart, one run. */
export function qualityPagesController({ services, profile }: AppContext) {
  const apiRoot = profile.quality?.root;

  return {
    /** `/evals`: approved suites with filters; htmx gets the list alone. */
    async catalogue(req: Request, res: Response) {
      const params = filledParams(req.query);
      if (cleanFilterUrl(req, res, params)) return;
      const { query, fieldErrors } = parseFilters(() => parseOrThrow(suiteListQuerySchema, params));
      const [result, categories] = await Promise.all([
        query ? services.qualitySuites.list(query) : undefined,
        services.qualitySuites.categories(),
      ]);
      const data = { title: 'Evals', params, result, fieldErrors, categories, runners: suiteRunners, queryString };
      render(res, isHtmxRequest(req) ? 'partials/evals/catalogue' : 'pages/evals/index', data, query ? 200 : 400);
    },

    /** `/evals/{slug}`: an approved suite, its leaderboard (filtered, paged) and the quality-vs-speed chart. */
    async suite(req: Request, res: Response) {
      const suite = await services.qualitySuites.get(String(req.params.slug));
      const params = filledParams(req.query);
      if (cleanFilterUrl(req, res, params)) return;
      const { query, fieldErrors } = parseFilters(() => parseOrThrow(suitePageQuerySchema, params));
      const [board, facets] = await Promise.all([
        query
          ? services.qualityPages.suiteBoard(
              suite.id,
              { modelFamily: query.modelFamily, quantization: query.quantization, hwClass: query.hwClass },
              { limit: SUITE_RUNS_PAGE_SIZE, offset: query.offset },
            )
          : undefined,
        services.qualityPages.suiteFacets(suite.id),
      ]);
      const data = {
        title: suite.name,
        suite,
        params,
        board,
        chart: board ? qualityVersusSpeedChart(board.chartRuns, suite.name) : undefined,
        withoutSpeed: board ? board.chartRuns.filter((run) => run.bestTokSOut === null) : [],
        chartLimit: SUITE_CHART_RUNS,
        facets,
        hwClassOptions: HW_CLASS_OPTIONS,
        fieldErrors,
        queryString,
        scoreText,
        apiRoot,
      };
      render(res, isHtmxRequest(req) ? 'partials/evals/suite-runs' : 'pages/evals/suite', data, query ? 200 : 400);
    },

    /** `/evals/runs/{id}`: one run (approved, or the viewer's own) with its task scores, a page of traces and reactions. */
    async run(req: Request, res: Response) {
      const id = String(req.params.id);
      const viewerId = req.actor?.user.id ?? null;
      const run = withUncertainty(await services.qualityRuns.get(id, viewerId));
      const { query: pageQuery, fieldErrors } = parseFilters(() => parseOrThrow(runPageQuerySchema, filledParams(req.query)));
      if (!pageQuery)
        throw new BadRequest(
          Object.entries(fieldErrors)
            .map(([name, problems]) => `${name}: ${problems.join(' ')}`)
            .join('; '),
        );
      const { page } = pageQuery;
      const traces = await services.qualityRuns.artifacts(
        id,
        { limit: ARTIFACTS_PER_PAGE, offset: (page - 1) * ARTIFACTS_PER_PAGE },
        viewerId,
      );
      const artifacts = {
        items: await services.qualityPages.withAnswers(run.suiteId, traces.artifacts),
        total: traces.total,
        page,
        pages: Math.max(1, Math.ceil(traces.total / ARTIFACTS_PER_PAGE)),
        path: `/evals/runs/${id}`,
      };
      if (isHtmxRequest(req)) return render(res, 'partials/evals/artifacts', { artifacts });
      render(res, 'pages/evals/run', {
        title: `${run.suite.name} · ${run.model.displayName}`,
        run,
        artifacts,
        isOwner: viewerId === run.userId,
        hardware: hardwareLabel(run.hardware as { hwClass: string }),
        scoreText,
        apiRoot,
      });
    },
  };
}
