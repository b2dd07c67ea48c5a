import type { Request, Response } from 'express';
import { ValidationFailed } from '../../lib/errors.ts';
import { bestByHardwareChart, speedVersusMemoryChart } from '../../lib/run-charts.ts';
import { methodology, SUSPECT_FACTOR } from '../../lib/roofline.ts';
import { parseOrThrow } from '../../lib/validation.ts';
import { isHtmxRequest } from '../../middleware/request-kind.ts';
import { modelsListQuerySchema } from '../../schemas/models-query.schema.ts';
import { speedTestListQuerySchema } from '../../schemas/speed-test-query.schema.ts';
import { getHardwareProfile, getModelDetail, listModels, listModelTree } from '../../services/catalogue.service.ts';
import { leaderboardPage, leaderboardRuns } from '../../services/leaderboard.service.ts';
import { listSpeedTests, speedTestListRuns, type SpeedTestDeps } from '../../services/speed-tests.service.ts';
import { render } from '../../views.ts';
import { cleanFilterUrl, filledParams, queryString } from './leaderboard.ts';

const PAGE_SIZE = 50;

export function cataloguePagesController(deps: SpeedTestDeps, hubUrl: string) {
  const { db, profile } = deps;

  return {
    /** The catalogue: search as you type; a tree of bases and their finetunes. */
    async models(req: Request, res: Response) {
      const params = filledParams(req.query);
      if (cleanFilterUrl(req, res, params)) return;
      const { tree, ...query } = parseOrThrow(modelsListQuerySchema(profile), { limit: String(PAGE_SIZE), ...params });
      const result = tree ? await listModelTree(db, query) : await listModels(db, query);
      const data = { title: 'Models', result, tree: Boolean(tree), search: query.search ?? '', params, queryString };
      render(res, isHtmxRequest(req) ? 'partials/models/list' : 'pages/models/index', data);
    },

    /** One model: hub facts, tree neighbours, charts and its runs (finetunes included). */
    async model(req: Request, res: Response) {
      const hfId = `${req.params.org}/${req.params.model}`;
      const model = await getModelDetail(db, hfId);
      const params = filledParams(req.query);
      let runs;
      let fieldErrors: Record<string, string[]> = {};
      try {
        const query = parseOrThrow(speedTestListQuerySchema(profile), { ...params, hfId: model.hfId, limit: params.limit ?? String(PAGE_SIZE) });
        const list = await listSpeedTests(deps, query, req.actor?.user.id ?? null);
        runs = { ...list, benchmarks: speedTestListRuns(profile, list) };
      } catch (error) {
        if (!(error instanceof ValidationFailed)) throw error;
        fieldErrors = error.details.fieldErrors;
      }
      const chartQuery = { hfId: model.hfId, sort: 'tokSOut', format: 'json', offset: 0 } as const;
      const [best, spread] = await Promise.all([
        leaderboardPage(deps, { ...chartQuery, bestPer: 'hardware', limit: 20 }, { withTotal: false }),
        leaderboardPage(deps, { ...chartQuery, limit: 200 }, { withTotal: false }),
      ]);
      render(res, 'pages/models/show', {
        title: model.hfId,
        model,
        runs,
        charts: {
          bars: bestByHardwareChart(leaderboardRuns(profile, best), model.displayName),
          scatter: speedVersusMemoryChart(leaderboardRuns(profile, spread), model.displayName),
        },
        fieldErrors,
        params,
        queryString,
        hubUrl,
      });
    },

    /** One hardware profile and its runs across models. */
    async hardware(req: Request, res: Response) {
      const offset = Math.max(0, Number.parseInt(String(req.query.offset ?? '0'), 10) || 0);
      const { hardware, runs, total } = await getHardwareProfile(db, profile, String(req.params.id), { limit: PAGE_SIZE, offset }, req.actor?.user.id ?? null);
      render(res, 'pages/hardware/show', { title: 'Hardware profile', hardware, runs, total, offset, limit: PAGE_SIZE });
    },

    methodology(_req: Request, res: Response) {
      render(res, 'pages/methodology', { title: 'Methodology', methodology, suspectFactor: SUSPECT_FACTOR });
    },
  };
}
