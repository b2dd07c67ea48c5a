/**
 * `llm-bench reproduce <run id>`: reads a run's recipe from the leaderboard (GET
 * /api/speed-tests/{id}: weights, engine build, speed-shaping flags, workload), measures the
 * same workload on the caller's engine (`measure` with the recipe's flags), prints the
 * measured figure next to the run's, and with --submit sends it with `replicates: <run id>`.
 * The leaderboard counts it among the run's replications when the recipe and the device
 * match (the caller's engine build included) and says why not otherwise.
 */
import type { Recipe } from '../../runs/submission/recipe.ts';
import { usageError } from './errors.ts';
import type { LeaderboardClient } from './leaderboard.ts';
import type { DepthResult } from './measure.ts';

type Json = Record<string, any>;

export interface Reproduction {
  runId: string;
  recipe: Recipe;
  /** The run's own output tok/s, to print beside the measured one. */
  originalTokSOut: number | null;
}

const RUN_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A measured count within this share of the recipe's is the recipe's (the prompt is calibrated to the server's tokenizer). */
export const WORKLOAD_TOLERANCE = 0.05;

/** The run and its recipe, from the leaderboard; a usage error when the id or the run cannot be reproduced. */
export async function readReproduction(client: LeaderboardClient, runId: string | undefined): Promise<Reproduction> {
  if (!runId || !RUN_ID.test(runId)) throw usageError('reproduce takes the id of a run: llm-bench reproduce <run id> --base-url URL');
  const run: Json = await client.run(runId);
  const recipe = run.recipe as Recipe | null | undefined;
  if (!recipe) throw usageError(`Run ${runId} has no recipe at ${client.base} (a leaderboard of API revision 3 answers one).`);
  if (recipe.workload.batchSize > 1)
    throw usageError(
      `Run ${runId} ran batches of ${recipe.workload.batchSize} sequences per request; llm-bench measures one sequence per request, so it cannot reproduce it.`,
    );
  return { runId, recipe, originalTokSOut: typeof run.tokSOut === 'number' ? run.tokSOut : null };
}

/**
 * The `measure` flags of the recipe's workload and weights; flags the caller gives come
 * after them and win (the run then no longer counts as a replication, and says why).
 */
export function recipeMeasureArgs({ recipe }: Reproduction): string[] {
  const { model, workload, command } = recipe;
  return [
    ['--hf-id', model.hfId],
    ['--quantization', model.quantization],
    ...(workload.promptTokens > 0 ? [['--prompt-tokens', String(workload.promptTokens)]] : []),
    ...(workload.outputTokens > 1 ? [['--max-tokens', String(workload.outputTokens)]] : []),
    ['--depth', String(workload.prefillTokens)],
    ['--concurrency', String(workload.concurrency)],
    ['--context-length', String(workload.contextLength)],
    ...(command ? [['--command', command]] : []),
  ].flat();
}

/**
 * The token counts a reproduction submits: each the recipe's where the measurement came
 * within WORKLOAD_TOLERANCE of it (what it aimed at: the prompt is calibrated to the
 * server's tokenizer), the measured one otherwise; `matches` when all three are the recipe's.
 */
export function reproducedCounts(result: DepthResult, { recipe }: Reproduction) {
  const pick = (measured: number, stated: number) =>
    measured === stated || (stated > 0 && Math.abs(measured - stated) <= WORKLOAD_TOLERANCE * stated) ? stated : measured;
  const { promptTokens, outputTokens, prefillTokens } = recipe.workload;
  const counts = {
    promptTokens: pick(result.promptTokens, promptTokens),
    outputTokens: pick(result.outputTokens, outputTokens),
    prefillTokens: pick(result.contextTokens, prefillTokens),
  };
  const matches = counts.promptTokens === promptTokens && counts.outputTokens === outputTokens && counts.prefillTokens === prefillTokens;
  return { ...counts, matches };
}

/** One line per result: the measured decode speed next to the run's. */
export function comparisonLines(results: DepthResult[], reproduction: Reproduction): string[] {
  const original = reproduction.originalTokSOut;
  return results.map((result) => {
    const measured = result.stats.decodeTokS?.median;
    const ratio = measured !== undefined && original ? ` (${(measured / original).toFixed(2)}x the original)` : '';
    const counts = reproducedCounts(result, reproduction);
    return (
      `run ${reproduction.runId}: ${original ?? 'n/a'} tok/s; yours: ${measured === undefined ? 'n/a' : measured.toFixed(2)} tok/s${ratio}` +
      (counts.matches
        ? ''
        : `; workload differs from the recipe (prompt ${result.promptTokens}, output ${result.outputTokens}, depth ${result.contextTokens} tokens), so it would not count as a replication`)
    );
  });
}
