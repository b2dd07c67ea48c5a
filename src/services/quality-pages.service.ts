import type { Knex } from 'knex';
import type { HwClass } from '../constants.ts';
import { acceptedAnswers, aggregateStandardError, goldLetter, scoreResponse } from '../lib/quality-scoring.ts';
import type { QualityItem, SuiteDoc, SuiteTask } from '../schemas/quality.schema.ts';
import type { ServiceDeps } from './deps.ts';
import {
  approvedRunsOfModel,
  bestPerSuite,
  BY_SCORE,
  itemScoringRule,
  qualityRunsWithRelations,
  toQualityRun,
  type QualityRun,
  type QualityRunListRow,
} from './quality-runs.service.ts';

/**
 * What the public quality pages read beyond the API's services: a suite's leaderboard of
 * approved runs with each run's best matching speed (the quality-vs-speed chart), the
 * filter choices, a model's best score per suite and quantization, and the answers a run
 * page shows next to each trace.
 */

export interface SuiteRunFilters {
  modelFamily?: string;
  quantization?: string;
  hwClass?: HwClass;
}

/** A run with its score's uncertainty and, on suite pages, the best speed of its model, quantization and hardware class. */
export type RankedQualityRun = QualityRun & { scoreStdError: number | null; bestTokSOut: number | null };

/** Runs drawn on a suite's chart at most (the best scores of the filtered set). */
export const SUITE_CHART_RUNS = 500;

/**
 * The best single-stream output tok/s of an approved speed test of the run's model, on the
 * same hardware class, in the same quantization compared case-insensitively (speed tests
 * keep what their submitters wrote). Null when there is none.
 */
const BEST_MATCHING_SPEED = `(select max(s.tok_s_out) from speed_test_runs s
  where s.status = 'APPROVED' and s.active_sequences = 1 and s.model_id = r.model_id and s.hw_class = r.hw_class
    and lower(s.quantization) = lower(r.quantization)) as best_tok_s_out`;

/** The aggregate's standard error on the score's scale (0-100), when every task gives one and the aggregation allows it. */
export function scoreStdError(run: Pick<QualityRun, 'tasks' | 'suite'>): number | null {
  const fraction = aggregateStandardError(run.tasks, run.suite.aggregation);
  return fraction === null ? null : Math.round(fraction * 100 * 100) / 100;
}

export function withUncertainty(run: QualityRun, bestTokSOut: number | null = null): RankedQualityRun {
  return { ...run, scoreStdError: scoreStdError(run), bestTokSOut };
}

const ranked = (row: QualityRunListRow & { best_tok_s_out?: number | null }) =>
  withUncertainty(toQualityRun(row), row.best_tok_s_out ?? null);

/**
 * A model family without case or separators: GGUF writes `qwen3moe` where config.json writes
 * `qwen3_moe`, one family (as the leaderboard's modelFamily filter reads them).
 */
const SQUASHED_FAMILY = "regexp_replace(lower(m.family), '[^a-z0-9]+', '', 'g')";

function applyFilters(q: Knex.QueryBuilder, filters: SuiteRunFilters): void {
  if (filters.modelFamily) q.whereRaw(`${SQUASHED_FAMILY} = regexp_replace(lower(?), '[^a-z0-9]+', '', 'g')`, [filters.modelFamily]);
  if (filters.quantization) q.whereRaw('lower(r.quantization) = lower(?)', [filters.quantization]);
  if (filters.hwClass) q.where('r.hw_class', filters.hwClass);
}

/** A trace as the run page shows it: the upload, with the item's expected answer and the server's reading of the response. */
export interface AnnotatedArtifact {
  seq: number;
  taskKey: string;
  itemIndex: number | null;
  prompt: string | null;
  question: string | null;
  response: string | null;
  score: number | null;
  error: string | null;
  /** The item's input, when the trace does not repeat it. */
  input: string | null;
  /** The accepted answers (multiple choice: the letter and its choice), or the reference answer. */
  expected: string | null;
  /** What the server read from the response, and its score for it, where it can score the task. */
  extracted: string | null;
  serverScore: number | null;
}

type UploadedArtifact = Pick<AnnotatedArtifact, 'seq' | 'taskKey' | 'itemIndex' | 'prompt' | 'question' | 'response' | 'score' | 'error'>;

/** The expected answer of an item as text. */
function expectedAnswer(item: QualityItem): string | null {
  if (item.gold === undefined) return item.referenceAnswer ?? null;
  if (item.choices) {
    const letter = goldLetter(item.gold, item.choices);
    if (letter) return `${letter}. ${item.choices[letter.charCodeAt(0) - 65]}`;
  }
  return acceptedAnswers(item.gold).join(' | ');
}

export function createQualityPagesService({ db }: Pick<ServiceDeps, 'db'>) {
  /** Approved runs of a suite passing the filters, with their best matching speed. */
  const approvedRunsOf = (suiteId: string, filters: SuiteRunFilters) =>
    qualityRunsWithRelations(db)
      .select(db.raw(BEST_MATCHING_SPEED))
      .where({ 'r.suite_id': suiteId, 'r.status': 'APPROVED' })
      .modify(applyFilters, filters) as unknown as Knex.QueryBuilder<never, (QualityRunListRow & { best_tok_s_out: number | null })[]>;

  /** Items of a task at the given indexes: from the document, or read from only the shards holding them. */
  async function itemsAt(task: SuiteTask, indexes: readonly number[]): Promise<Map<number, QualityItem>> {
    const found = new Map<number, QualityItem>();
    if (task.dataset?.source === 'inline') {
      for (const index of indexes) if (task.dataset.items[index]) found.set(index, task.dataset.items[index]);
      return found;
    }
    if (task.dataset?.source !== 'shard' || indexes.length === 0) return found;
    const { rows } = await db.raw<{ rows: { idx: number; item: QualityItem }[] }>(
      `with shards as (
         select sh.items, sh.item_count, sum(sh.item_count) over (order by sh.shard_index) - sh.item_count as first_index
         from quality_dataset_shards sh join quality_datasets d on d.id = sh.dataset_id
         where d.slug = ? and d.status <> 'WITHDRAWN'
       )
       select i.idx, shards.items -> (i.idx - shards.first_index)::int as item
       from unnest(?::int[]) as i(idx)
       join shards on i.idx >= shards.first_index and i.idx < shards.first_index + shards.item_count`,
      [task.dataset.datasetSlug, [...new Set(indexes)]],
    );
    for (const row of rows) if (row.item) found.set(row.idx, row.item);
    return found;
  }

  return {
    /**
     * A suite's leaderboard: one page of its approved runs passing the filters, best score
     * first (then earliest), and the best SUITE_CHART_RUNS of the same set for the chart.
     */
    async suiteBoard(suiteId: string, filters: SuiteRunFilters, page: { limit: number; offset: number }) {
      const counted = db('quality_runs as r')
        .join('models as m', 'm.id', 'r.model_id')
        .where({ 'r.suite_id': suiteId, 'r.status': 'APPROVED' })
        .modify(applyFilters, filters)
        .count<{ total: string }[]>({ total: '*' });
      const [chartRows, [{ total }]] = await Promise.all([
        approvedRunsOf(suiteId, filters)
          .orderBy([...BY_SCORE])
          .limit(SUITE_CHART_RUNS),
        counted,
      ]);
      // A page within the chart's runs is a slice of them; only a page beyond is read again.
      const end = page.offset + page.limit;
      const rows =
        end <= SUITE_CHART_RUNS
          ? chartRows.slice(page.offset, end)
          : await approvedRunsOf(suiteId, filters)
              .orderBy([...BY_SCORE])
              .limit(page.limit)
              .offset(page.offset);
      return { runs: rows.map(ranked), total: Number(total), limit: page.limit, offset: page.offset, chartRuns: chartRows.map(ranked) };
    },

    /** The model families and quantizations among a suite's approved runs, for its filter form. */
    async suiteFacets(suiteId: string): Promise<{ families: string[]; quantizations: string[] }> {
      const approved = { 'r.suite_id': suiteId, 'r.status': 'APPROVED' };
      const [families, quantizations] = await Promise.all([
        // One option per family whatever its spelling (the filter matches them all).
        db('quality_runs as r')
          .join('models as m', 'm.id', 'r.model_id')
          .where(approved)
          .whereNotNull('m.family')
          .groupByRaw(SQUASHED_FAMILY)
          .orderByRaw(SQUASHED_FAMILY)
          .select<{ family: string }[]>(db.raw('min(m.family) as family'))
          .then((rows) => rows.map((row) => row.family)),
        // One spelling per quantization: they are compared case-insensitively.
        db('quality_runs as r')
          .where(approved)
          .whereNotNull('r.quantization')
          .groupByRaw('lower(r.quantization)')
          .orderByRaw('lower(r.quantization)')
          .select<{ quantization: string }[]>(db.raw('min(r.quantization) as quantization')),
      ]);
      return { families, quantizations: quantizations.map((row) => row.quantization) };
    },

    /**
     * The model page's quality section, from one read of the model's approved runs: the best
     * run per suite, and for each suite run in more than one quantization (compared
     * case-insensitively) the best run per quantization, best score first: the quality a
     * smaller quantization costs.
     */
    async modelSection(modelId: string) {
      const rows = await approvedRunsOfModel(db, modelId);
      const bySuite = new Map<string, Map<string, QualityRunListRow>>();
      for (const row of rows) {
        if (!row.quantization) continue;
        const best = bySuite.get(row.suite_id) ?? bySuite.set(row.suite_id, new Map()).get(row.suite_id)!;
        const quantization = row.quantization.toLowerCase();
        if (!best.has(quantization)) best.set(quantization, row);
      }
      const byQuantization = [...bySuite.values()]
        .filter((best) => best.size > 1)
        .map((best) => {
          const runs = [...best.values()].map(ranked);
          return { suite: runs[0]!.suite, runs };
        })
        .sort((a, b) => a.suite.slug.localeCompare(b.suite.slug));
      return { bestPerSuite: bestPerSuite(rows).map(ranked), byQuantization };
    },

    /** A run's traces with each item's expected answer and, where the server can score the task, what it read and scored. */
    async withAnswers(suiteId: string, artifacts: readonly UploadedArtifact[]): Promise<AnnotatedArtifact[]> {
      const suite = await db('quality_suites').where({ id: suiteId }).first<{ suite_doc: SuiteDoc } | undefined>('suite_doc');
      const tasks = new Map((suite?.suite_doc.tasks ?? []).map((task) => [task.key, task]));
      const itemsOf = new Map<string, Map<number, QualityItem>>();
      for (const key of new Set(artifacts.map((artifact) => artifact.taskKey))) {
        const task = tasks.get(key);
        const indexes = artifacts.flatMap((artifact) =>
          artifact.taskKey === key && artifact.itemIndex !== null ? [artifact.itemIndex] : [],
        );
        if (task) itemsOf.set(key, await itemsAt(task, indexes));
      }
      return artifacts.map((artifact) => {
        const task = tasks.get(artifact.taskKey);
        const item = artifact.itemIndex === null ? undefined : itemsOf.get(artifact.taskKey)?.get(artifact.itemIndex);
        const rule = task && suite ? itemScoringRule(suite.suite_doc, task) : null;
        const reading =
          rule && item?.gold !== undefined && typeof artifact.response === 'string'
            ? scoreResponse(rule, { gold: item.gold, choices: item.choices }, artifact.response)
            : null;
        return {
          ...artifact,
          input: artifact.question || artifact.prompt ? null : (item?.input ?? null),
          expected: item ? expectedAnswer(item) : null,
          extracted: reading?.extracted ?? null,
          serverScore: reading?.score ?? null,
        };
      });
    },
  };
}
