import type { Request, Response } from 'express';
import type { AppContext } from '../../app-context.ts';
import { ValidationFailed } from '../../lib/errors.ts';
import { methodology } from '../../lib/roofline.ts';
import { parseOrThrow } from '../../lib/validation.ts';
import { isHtmxRequest } from '../../middleware/request-kind.ts';
import { modelsListQuerySchema } from '../../schemas/models-query.schema.ts';
import { speedTestListQuerySchema } from '../../schemas/speed-test-query.schema.ts';
import { leaderboardRuns } from '../../services/leaderboard.service.ts';
import { speedTestListRuns } from '../../services/speed-tests.service.ts';
import { scoreByQuantizationChart, scoreText } from '../../web/charts/quality-charts.ts';
import { bestByHardwareChart, speedVersusMemoryChart } from '../../web/charts/speed-test-charts.ts';
import { parseForm } from '../../web/forms.ts';
import { cleanFilterUrl, filledParams, queryString } from '../../web/query.ts';
import { render } from '../../web/views.ts';

const PAGE_SIZE = 50;

/** The model catalogue, one model's page, one hardware profile's page and the methodology. */
export function cataloguePagesController({ services, profile, config }: AppContext) {
  const hubUrl = config.hfEndpoint;

  /** The model page's quality section: best score per suite, and each suite's best score per quantization with its chart. */
  async function modelQuality(modelId: string, modelName: string) {
    const { bestPerSuite, byQuantization } = await services.qualityPages.modelSection(modelId);
    return {
      bestPerSuite,
      byQuantization: byQuantization.map(({ suite, runs }) => ({ suite, runs, chart: scoreByQuantizationChart(runs, suite.name, modelName) })),
      scoreText,
    };
  }

  return {
    /** The catalogue: search as you type; a tree of bases and their finetunes. */
    async models(req: Request, res: Response) {
      const params = filledParams(req.query);
      if (cleanFilterUrl(req, res, params)) return;
      // A bad query (a search too long, say) is shown by the form, not as a bare error page.
      const parsed = parseForm(modelsListQuerySchema(profile), { limit: String(PAGE_SIZE), ...params });
      const fieldErrors = parsed.ok ? {} : parsed.fieldErrors;
      let result = { models: [] as unknown[], total: 0, limit: PAGE_SIZE, offset: 0 };
      if (parsed.ok) {
        const { tree: _tree, ...query } = parsed.data;
        result = parsed.data.tree ? await services.models.tree(query) : await services.models.list(query);
      }
      const search = typeof params.search === 'string' ? params.search : '';
      const data = { title: 'Models', result, tree: params.tree === 'true', search, params, queryString, fieldErrors };
      render(res, isHtmxRequest(req) ? 'partials/models/list' : 'pages/models/index', data, parsed.ok ? 200 : 400);
    },

    /** One model: hub facts, tree neighbours, charts and its runs (finetunes included). */
    async model(req: Request, res: Response) {
      const model = await services.models.detail(`${req.params.org}/${req.params.model}`);
      const params = filledParams(req.query);
      let runs;
      let fieldErrors: Record<string, string[]> = {};
      try {
        const query = parseOrThrow(speedTestListQuerySchema(profile), { ...params, hfId: model.hfId, limit: params.limit ?? String(PAGE_SIZE) });
        const list = await services.speedTests.list(query, req.actor?.user.id ?? null);
        runs = { ...list, benchmarks: speedTestListRuns(profile, list) };
      } catch (error) {
        if (!(error instanceof ValidationFailed)) throw error;
        fieldErrors = error.details.fieldErrors;
      }
      const chartQuery = { hfId: model.hfId, sort: 'tokSOut', format: 'json', offset: 0 } as const;
      const [best, spread, quality, reports] = await Promise.all([
        services.leaderboard.page({ ...chartQuery, bestPer: 'hardware', limit: 20 }, { withTotal: false }),
        services.leaderboard.page({ ...chartQuery, limit: 200 }, { withTotal: false }),
        profile.quality ? modelQuality(model.id, model.displayName) : undefined,
        profile.reports ? services.reports.latestForModel(model.id, 3) : undefined,
      ]);
      render(res, 'pages/models/show', {
        title: model.hfId,
        model,
        runs,
        charts: {
          bars: bestByHardwareChart(leaderboardRuns(profile, best), model.displayName),
          scatter: speedVersusMemoryChart(leaderboardRuns(profile, spread), model.displayName),
        },
        quality,
        reports,
        fieldErrors,
        params,
        queryString,
        hubUrl,
      });
    },

    /** One hardware profile and its runs across models. */
    async hardware(req: Request, res: Response) {
      const offset = Math.max(0, Number.parseInt(String(req.query.offset ?? '0'), 10) || 0);
      const { hardware, runs, total } = await services.hardware.get(String(req.params.id), { limit: PAGE_SIZE, offset }, req.actor?.user.id ?? null);
      render(res, 'pages/hardware/show', { title: 'Hardware profile', hardware, runs, total, offset, limit: PAGE_SIZE });
    },

    methodology(_req: Request, res: Response) {
      render(res, 'pages/methodology', { title: 'Methodology', methodology });
    },
  };
}
