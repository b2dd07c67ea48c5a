import type { Request, Response } from 'express';
import type { AppContext } from '../../app-context.ts';
import { ValidationFailed } from '../../lib/errors.ts';
import { canonicalQuantization } from '../../lib/quantization-labels.ts';
import { parseOrThrow } from '../../lib/validation.ts';
import { isHtmxRequest } from '../../middleware/request-kind.ts';
import { leaderboardFormFields, type FormField } from '../facets.ts';
import {
  leaderboardQuerySchema,
  leaderboardSorts,
  type LeaderboardQuery,
  type LeaderboardSort,
} from '../reads/leaderboard-query.schema.ts';
import { leaderboardRuns } from '../run-json.ts';
import { leaderboardChart } from '../presentation/charts.ts';
import { leaderboardPageView } from '../presentation/leaderboard-view.ts';
import { cleanFilterUrl, filledParams, queryString } from '../../web/query.ts';
import { render } from '../../web/views.ts';
import { answerStableUntil } from '../../middleware/read-cache.ts';

const CHART_RUNS = 200;
/** Distinct top-of-board charts remembered (the unfiltered board's and a few popular filters'). */
const CHART_MEMO_SIZE = 8;
/** Suggestions the model field offers, and the shortest text worth suggesting for. */
const MODEL_SUGGESTIONS = 10;
const MODEL_SUGGESTION_MIN = 2;

/**
 * The ranking's metric columns. Every sort has its column, highlighted when it ranks;
 * the efficiency ones appear only when they rank (most runs lack their inputs), and say
 * what a run lacks instead of a blank.
 */
export interface MetricColumn {
  sort: LeaderboardSort;
  heading: string;
  /** What the heading abbreviates, and the "Rank by" link's text. */
  name: string;
  digits: number;
  /** Shown for a run without the figure. */
  missing: string;
  onlyWhenRanked?: boolean;
}
const METRIC_COLUMNS: readonly MetricColumn[] = [
  { sort: 'tokSOut', heading: 'tok/s out', name: 'output tok/s', digits: 1, missing: '—' },
  { sort: 'tokSPrefill', heading: 'prefill tok/s', name: 'prefill tok/s', digits: 0, missing: 'not measured' },
  { sort: 'ttftMs', heading: 'TTFT ms', name: 'time to first token', digits: 0, missing: 'not measured' },
  { sort: 'tokPerWatt', heading: 'tok/W', name: 'tok/s per watt', digits: 3, missing: 'no power figure', onlyWhenRanked: true },
  { sort: 'tokPerDollar', heading: 'tok/$', name: 'tok/s per dollar', digits: 4, missing: 'no price given', onlyWhenRanked: true },
];

/** Beside the filters, the form's own view control: every run, or each hardware's best. */
const BEST_PER: FormField = {
  name: 'bestPer',
  label: 'Show',
  control: { kind: 'choice', choices: [{ value: 'hardware', label: 'best run per hardware' }], anyLabel: 'every run' },
};

/**
 * "Your machine", beside the model: its memory ("24", "24 GB": runs on hardware with at
 * most that much, `memoryAtMost`) or a device's name (`hardwareName`). With the form's
 * "Best run per device" it answers "what runs my model fastest on my machine" in one step.
 */
const MACHINE: FormField = {
  name: 'machine',
  label: 'Your machine',
  control: { kind: 'text', placeholder: '24 GB, RTX 4090, M4 Max' },
};
const BEST_PER_DEVICE = 'best-per-device';
/** "24 GB", "24G", "24.5 gb" or a bare number below 1000 ("24"); "4090" is a card's name. */
const MEMORY_GB = /^\s*(?:(\d{1,5})(?:[.,]\d+)?\s*(?:gb|gib|g)|(\d{1,3})(?:[.,]\d+)?)\s*$/i;

/** The machine field's text as the API filter it stands for (a bad size is the filter's own error). */
function readMachine(text: unknown): { memoryAtMost: string } | { hardwareName: string } | null {
  if (typeof text !== 'string') return null;
  const memory = MEMORY_GB.exec(text);
  return memory ? { memoryAtMost: (memory[1] ?? memory[2])! } : { hardwareName: text.trim() };
}

/**
 * The page's field errors from the API's: a choice field says the URL's value is not one
 * of its choices (the select shows them); the rest keep the API's words.
 */
function pageFieldErrors(fields: readonly FormField[], fieldErrors: Record<string, string[]>, params: Record<string, unknown>) {
  const formFilters = new Set(fields.map((field) => field.name));
  // Offered as a fixed list: a bad value is "not one of the choices", not the API's list of every value.
  const choiceFilters = new Set(
    fields.filter((field) => field.control.kind === 'choice' || field.control.kind === 'engine').map((field) => field.name),
  );
  const named: Record<string, string[]> = {};
  const others: Record<string, string[]> = {};
  for (const [name, messages] of Object.entries(fieldErrors)) {
    if (!formFilters.has(name)) others[name] = messages;
    else if (choiceFilters.has(name) && typeof params[name] === 'string')
      named[name] = [`“${params[name]}” is not one of the choices; pick one from the list.`];
    else named[name] = messages;
  }
  return { fields: named, others };
}

/** `/`: the leaderboard page with every filter, its chart, paging and the CSV export link. */
export function leaderboardPagesController({ services, profile }: AppContext) {
  const sorts = leaderboardSorts.filter((sort) => sort !== 'tokSPrefill' || profile.speedTests.prefillFields);
  // The filter form: the revision's facets (src/runs/facets.ts), and the view control.
  const form = leaderboardFormFields(profile);
  form.more.push(BEST_PER);
  // Where the revision names hardware by words, "Your machine" follows the model.
  if (form.main.some((field) => field.name === 'hardwareName')) form.main.splice(1, 0, MACHINE);
  const formFields = [...form.main, ...form.more];
  const options = {
    form,
    metrics: METRIC_COLUMNS.filter((column) => sorts.includes(column.sort)),
    moreFilters: form.more.map((field) => field.name),
  };

  /**
   * The API's quantization filter is exact; the page reads a known label however it is
   * spelled (`q4_k_m` is Q4_K_M) and says so.
   */
  function loosenQuantization(params: Record<string, unknown>) {
    const typed = params.quantization;
    if (typeof typed !== 'string') return null;
    const canonical = canonicalQuantization(typed);
    if (canonical === typed) return null;
    params.quantization = canonical;
    return { typed, canonical };
  }

  /**
   * The chart of a top-of-board page, by its rows' JSON (without the viewer's reactions):
   * the same runs draw the same chart, and nearly every visit to `/` asks for the same top
   * 200. Remembering it saves parsing 200 documents and drawing two charts per page view;
   * a change to any of those runs changes the JSON, so a stale chart is never served.
   */
  const chartMemo = new Map<string, string>();
  function topChart(rowsJson: string, runs: () => ReturnType<typeof leaderboardRuns>): string {
    const remembered = chartMemo.get(rowsJson);
    if (remembered !== undefined) {
      chartMemo.delete(rowsJson);
      chartMemo.set(rowsJson, remembered);
      return remembered;
    }
    const chart = leaderboardChart(runs(), 'the filtered leaderboard');
    chartMemo.set(rowsJson, chart);
    if (chartMemo.size > CHART_MEMO_SIZE) chartMemo.delete(chartMemo.keys().next().value!);
    return chart;
  }

  return {
    async show(req: Request, res: Response) {
      const params = filledParams(req.query);
      // The form's "Best run per device" button: the view it asks for (the address keeps that, not the button).
      if (params.answer === BEST_PER_DEVICE && form.main.includes(MACHINE)) {
        delete params.answer;
        params.bestPer = 'hardware';
        // The answer is what was asked for: brought into view (below a phone's form, it would not be).
        if (isHtmxRequest(req)) res.set('HX-Reswap', 'outerHTML show:top');
      }
      if (cleanFilterUrl(req, res, params)) return;
      const quantizationRead = loosenQuantization(params);
      // The model box takes words and hub ids (a base with its quantizations and finetunes unless "this repo only").
      const modelRead = await services.models.readModelBox(params);
      const pageView = leaderboardPageView(profile, params);
      const { view } = pageView;
      const { machine: machineText, ...pageParams } = pageView.apiParams;
      const machine = form.main.includes(MACHINE) ? readMachine(machineText) : null;
      const apiParams = { ...pageParams, ...machine, ...modelRead?.query };
      let page: { rows: ReturnType<typeof leaderboardRuns>; total: number; limit: number; offset: number } | undefined;
      let chart: string | undefined;
      let sort: LeaderboardSort = 'tokSOut';
      let errors: ReturnType<typeof pageFieldErrors> = { fields: {}, others: {} };
      let status = 200;
      let figureCount: { with: number; of: number } | undefined;
      // Engines without approved runs are listed apart in the filter (undefined: not known, all listed alike).
      let enginesWithRuns: string[] | undefined;
      try {
        const query: LeaderboardQuery = parseOrThrow(leaderboardQuerySchema(profile), apiParams);
        sort = query.sort;
        // The chart shows the top of the filtered set, whatever page is being read.
        const rankedMetric = METRIC_COLUMNS.find((column) => column.sort === query.sort && column.onlyWhenRanked);
        const [current, top, withFigure, engines] = await Promise.all([
          services.leaderboard.page(query, { viewerId: req.actor?.user.id ?? null }),
          query.offset === 0 && query.limit >= CHART_RUNS
            ? undefined
            : services.leaderboard.page({ ...query, offset: 0, limit: CHART_RUNS }, { withTotal: false }),
          rankedMetric ? services.leaderboard.withFigure(query) : undefined,
          services.leaderboard.enginesWithRuns(),
        ]);
        enginesWithRuns = engines;
        // With `since`, the page (and its chart's top runs, of the same window) is exact until its oldest run leaves it.
        answerStableUntil(res, current.stableUntilMs);
        answerStableUntil(res, top?.stableUntilMs);
        page = { ...current, rows: leaderboardRuns(profile, current) };
        // tok/W and tok/$ rank only the runs that have the figure (most lack its inputs), and say how many do.
        if (rankedMetric && withFigure !== undefined) {
          figureCount = { with: withFigure, of: page.total };
          page = { ...page, total: withFigure, rows: page.rows.filter((run) => typeof run[rankedMetric.sort] === 'number') };
        }
        chart = top
          ? topChart(top.rowsJson, () => leaderboardRuns(profile, top))
          : leaderboardChart(page.rows.slice(0, CHART_RUNS), 'the filtered leaderboard');
      } catch (error) {
        if (!(error instanceof ValidationFailed)) throw error;
        const fieldErrors = { ...error.details.fieldErrors };
        // The machine field's own words stand for its filter: its error is the field's.
        for (const name of Object.keys(machine ?? {}))
          if (fieldErrors[name]) {
            fieldErrors.machine = fieldErrors[name];
            delete fieldErrors[name];
          }
        errors = pageFieldErrors(formFields, fieldErrors, params);
        status = 400;
      }
      const data = {
        title: 'Leaderboard',
        params,
        page,
        chart,
        fieldErrors: errors.fields,
        otherErrors: errors.others,
        options,
        sort,
        metrics: options.metrics.filter((column) => !column.onlyWhenRanked || column.sort === sort),
        quantizationRead,
        modelRead,
        machine,
        figureCount,
        enginesWithRuns,
        queryString,
        view,
        exportHref: `/api/leaderboard?${queryString(apiParams, { format: 'csv', limit: undefined, offset: undefined })}`,
      };
      render(res, isHtmxRequest(req) ? 'partials/leaderboard/results' : 'pages/leaderboard', data, status);
    },

    /** The model field's suggestions (a datalist's options), by the words typed: the catalogue search `/api/models/search` answers. */
    async modelSuggestions(req: Request, res: Response) {
      const typed = typeof req.query.hfId === 'string' ? req.query.hfId.trim().slice(0, 256) : '';
      const models = typed.length >= MODEL_SUGGESTION_MIN ? await services.models.search({ q: typed, limit: MODEL_SUGGESTIONS }) : [];
      render(res, 'partials/leaderboard/model-options', { models });
    },
  };
}
