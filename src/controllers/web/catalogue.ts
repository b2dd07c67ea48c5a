import type { Request, Response } from 'express';
import type { AppContext } from '../../app-context.ts';
import { ValidationFailed } from '../../lib/errors.ts';
import { peerMethodology } from '../../lib/peer-verdict.ts';
import { methodology } from '../../lib/roofline.ts';
import { parseOrThrow } from '../../lib/validation.ts';
import { messages } from '../../messages.ts';
import { isHtmxRequest } from '../../middleware/request-kind.ts';
import { modelsListQuerySchema } from '../../schemas/models-query.schema.ts';
import { speedTestListQuerySchema } from '../../runs/reads/speed-test-query.schema.ts';
import type { ModelScope } from '../../services/model-tree.ts';
import { speedTestListRuns } from '../../runs/run-json.ts';
import { scoreByQuantizationChart, scoreText } from '../../web/charts/quality-charts.ts';
import { modelCharts } from '../../web/charts/model-charts.ts';
import { parseForm } from '../../web/forms.ts';
import { cleanFilterUrl, filledParams, queryString } from '../../web/query.ts';
import { render } from '../../web/views.ts';

const PAGE_SIZE = 50;
/** Runs a model page's charts draw: the scope's fastest, so the leaders are always in. */
const MODEL_CHART_RUNS = 200;

/** The model catalogue, one model's page and the methodology (hardware pages: hardware.ts). */
export function cataloguePagesController({ services, profile, config }: AppContext) {
  const hubUrl = config.hfEndpoint;

  /** The model page's quality section: best score per suite, and each suite's best score per quantization with its chart. */
  async function modelQuality(modelId: string, modelName: string) {
    const { bestPerSuite, byQuantization } = await services.qualityPages.modelSection(modelId);
    return {
      bestPerSuite,
      byQuantization: byQuantization.map(({ suite, runs }) => ({
        suite,
        runs,
        chart: scoreByQuantizationChart(runs, suite.name, modelName),
      })),
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

    /**
     * One model: hub facts, tree neighbours, charts and its runs, in one scope for the whole
     * page (`?scope=model`, the default: this model; `?scope=tree`: with its finetunes and
     * quantizations), so the figures, the charts and the table count the same runs. The
     * table pages (htmx swaps only the table's region).
     */
    async model(req: Request, res: Response) {
      const model = await services.models.withTree(`${req.params.org}/${req.params.model}`);
      const { scope: scopeParam, ...params } = filledParams(req.query);
      const scope: ModelScope = scopeParam === 'tree' ? 'tree' : 'model';
      let runs;
      let fieldErrors: Record<string, string[]> =
        scopeParam === undefined || scopeParam === 'model' || scope === 'tree' ? {} : { scope: [messages.modelScopeInvalid] };
      try {
        const query = parseOrThrow(speedTestListQuerySchema(profile), {
          ...params,
          hfId: model.hfId,
          limit: params.limit ?? String(PAGE_SIZE),
        });
        const list = await services.speedTests.list(query, req.actor?.user.id ?? null, scope);
        runs = { ...list, benchmarks: speedTestListRuns(profile, list) };
      } catch (error) {
        if (!(error instanceof ValidationFailed)) throw error;
        fieldErrors = { ...fieldErrors, ...error.details.fieldErrors };
      }
      const pageParams = { ...params, scope: scope === 'tree' ? 'tree' : undefined };
      const runsRegion = { model, runs, scope, fieldErrors, params: pageParams, queryString };
      if (isHtmxRequest(req)) return render(res, 'partials/models/runs', runsRegion);
      const [figures, leaders, quality, reports] = await Promise.all([
        services.models.scopeFigures(model, scope),
        services.speedTestContext.fastestOfModel(model, scope, MODEL_CHART_RUNS),
        profile.quality ? modelQuality(model.id, model.displayName) : undefined,
        profile.reports ? services.reports.latestForModel(model.id, 3) : undefined,
      ]);
      const subject = scope === 'tree' ? `${model.displayName} and derived models` : model.displayName;
      render(res, 'pages/models/show', {
        ...runsRegion,
        title: model.hfId,
        figures,
        charts: modelCharts(leaders, subject),
        chartRuns: MODEL_CHART_RUNS,
        quality,
        reports,
        hubUrl,
      });
    },

    methodology(_req: Request, res: Response) {
      render(res, 'pages/methodology', { title: 'Methodology', methodology, peerMethodology });
    },
  };
}
