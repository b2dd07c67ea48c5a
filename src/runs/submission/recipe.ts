/**
 * A run's recipe (DECISIONS.md "Verdicts, peers and replication"): what someone else needs
 * to measure the same thing on their own engine. The weights (model, revision,
 * quantization), the engine build (name, version, build, commit), the engine flags that
 * shape speed (not the facts of one measurement: warm-up, speculative-decoding counters)
 * and the workload (prompt, output and context-depth tokens, batch size, concurrency,
 * context length). `recipeOf` is the one place a recipe and its key are made: the run
 * writer stores both (`recipe`, `recipe_key`), the migration backfilled them with it.
 *
 * Runs of one recipe key on one device and card count (`deviceKeyOf` in verdict.ts, the
 * peers' device key) by other users are a run's replications (src/runs/reads/replications.service.ts; migration `replications` keeps the
 * counts on every run).
 */
import { createHash } from 'node:crypto';
import { SPEC_COUNTER_FLAGS } from '../../constants.ts';
import { canonicalJson } from '../../lib/canonical-json.ts';

/** Engine flags that are facts of one measurement or the command's text, not settings: out of the recipe's flags. */
const NOT_RECIPE_FLAGS: ReadonlySet<string> = new Set(['warmup', 'commandSnippet', ...SPEC_COUNTER_FLAGS]);
/** Flags the recipe names under its workload instead. */
const WORKLOAD_FLAGS: ReadonlySet<string> = new Set(['concurrency', 'numParallel']);

export interface RecipeWorkload {
  promptTokens: number;
  outputTokens: number;
  /** Context depth: tokens already in the context before the prompt. */
  prefillTokens: number;
  contextLength: number;
  batchSize: number;
  /** Requests in flight at once (engineFlags.concurrency; 1 when not stated). */
  concurrency: number;
}

export interface Recipe {
  /** Four short digests joined by dots: model.engine.flags.workload. Equal keys, equal recipes. */
  key: string;
  model: { hfId: string; revision: string; quantization: string };
  engine: { name: string; version: string | null; build: string | null; commit: string | null };
  /** The speed-shaping engine flags as stated (aliases resolved), keys sorted. */
  flags: Record<string, unknown>;
  /** The launch command as submitted: shown, not part of the key (it holds local paths). */
  command: string | null;
  workload: RecipeWorkload;
}

/**
 * The parts of a recipe in key order (the migration `replications` names a differing part by
 * its place in the key: the weights, the engine build, the engine flags, the workload).
 */
export const RECIPE_PARTS = ['model', 'engine', 'flags', 'workload'] as const;

/** What a recipe is made from: a normalised submission, or a stored run read back. */
export interface RecipeSource {
  hfId: string;
  modelRevision: string;
  quantization: string;
  engineName: string;
  engineVersion?: string | null;
  engineBuild?: string | null;
  engineCommit?: string | null;
  engineFlags?: Record<string, unknown> | null;
  promptTokens: number;
  outputTokens: number;
  prefillTokens?: number | null;
  contextLength: number;
  batchSize: number;
}

const digest = (value: unknown) => createHash('sha256').update(canonicalJson(value)).digest('hex').slice(0, 12);

/** The run's recipe and its key. */
export function recipeOf(source: RecipeSource): Recipe {
  const given = source.engineFlags ?? {};
  const flags = Object.fromEntries(
    Object.entries(given)
      .filter(([name, value]) => value !== undefined && value !== null && !NOT_RECIPE_FLAGS.has(name) && !WORKLOAD_FLAGS.has(name))
      .sort(([a], [b]) => (a < b ? -1 : 1)),
  );
  const concurrency = Number(given.concurrency ?? given.numParallel ?? 1);
  const model = { hfId: source.hfId, revision: source.modelRevision, quantization: source.quantization };
  const engine = {
    name: source.engineName,
    version: source.engineVersion ?? null,
    build: source.engineBuild ?? null,
    commit: source.engineCommit ?? null,
  };
  const workload: RecipeWorkload = {
    promptTokens: source.promptTokens,
    outputTokens: source.outputTokens,
    prefillTokens: source.prefillTokens ?? 0,
    contextLength: source.contextLength,
    batchSize: source.batchSize,
    concurrency,
  };
  // Names compared as the catalogue compares them: a model id and a quantization label in any case.
  const keyed = {
    model: { ...model, hfId: model.hfId.toLowerCase(), quantization: model.quantization.toLowerCase() },
    engine: { ...engine, name: engine.name.toLowerCase(), commit: engine.commit?.toLowerCase() ?? null },
    flags,
    workload,
  };
  const key = RECIPE_PARTS.map((part) => digest(keyed[part])).join('.');
  return { key, model, engine, flags, command: typeof given.commandSnippet === 'string' ? given.commandSnippet : null, workload };
}

/** The run columns of a recipe: the recipe (JSON) and its key. */
export function recipeColumns(source: RecipeSource): { recipe: string; recipe_key: string } {
  const recipe = recipeOf(source);
  return { recipe: JSON.stringify(recipe), recipe_key: recipe.key };
}
