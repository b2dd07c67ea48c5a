import type { Knex } from 'knex';
import type { Db } from '../db/knex.ts';
import { NotFound } from '../lib/errors.ts';
import { containsLowercase, escapeLike } from '../lib/like-patterns.ts';
import { everyTokenSql, searchTokens, squashSeparatorsSql } from '../lib/search-tokens.ts';
import { ModelSearchTable, type ModelSearchHit } from '../lib/model-search.ts';
import { curatedModelFacts } from '../lib/curated-models.ts';
import { catalogueEntryFromHub, catalogueFacts, lowest, publicCatalogueEntry, type CatalogueEntry } from '../lib/model-metadata.ts';
import type { RunForVerdict, WeightsFacts } from '../runs/submission/verdict.ts';
import { messages } from '../messages.ts';
import type { ServiceDeps } from './deps.ts';
import type { PlausibilityService } from '../runs/submission/plausibility.service.ts';
import { MODEL_TREE_SQL, scopeCondition, type ModelScope } from './model-tree.ts';
import { assertVisibleWrite } from './visible-writes.ts';

/**
 * The model catalogue: built from the hub as runs arrive (a model is looked up once, then
 * kept), read as lists, finetune trees, search results and one model's page.
 */

export interface ModelRow {
  id: string;
  hf_id: string;
  display_name: string;
  family: string | null;
  params: number | null;
  params_approximate: boolean;
  active_params: number | null;
  is_moe: boolean;
  /** Bits per weight the model's published weights are stored in (MXFP4, FP8, a packed quant); caps a run's label. */
  native_bits_per_weight?: number | null;
  base_model_id: string | null;
  base_hf_id: string | null;
  base_relation: string | null;
  hub_sha: string | null;
  gated: boolean;
}

/** The model as embedded in runs and lists: the catalogue facts plus its row id and base. */
export type ModelSummary = Pick<
  CatalogueEntry,
  'hfId' | 'displayName' | 'family' | 'params' | 'paramsApproximate' | 'activeParams' | 'isMoE'
> & { id: string; baseHfId: string | null; baseRelation: string | null };

export function toModelSummary(row: ModelRow): ModelSummary {
  return {
    id: row.id,
    hfId: row.hf_id,
    displayName: row.display_name,
    family: row.family,
    params: row.params,
    paramsApproximate: row.params_approximate,
    activeParams: row.active_params,
    isMoE: row.is_moe,
    baseHfId: row.base_hf_id,
    baseRelation: row.base_relation,
  };
}

/** What a model box's text named (`pick`). */
export interface PickedModel {
  hfId: string;
  displayName: string;
  /** Read from words (the base of the best match) rather than an exact id. */
  byWords: boolean;
  /** Models in its tree (itself, finetunes, quantizations, ...). */
  treeSize: number;
}

/** A page address's model box read (`readModelBox`): what was typed, the model it names, and the leaderboard query for it. */
export interface ModelBoxRead {
  typed: string;
  picked: PickedModel | null;
  scope: unknown;
  query: { hfId?: string; scope?: unknown };
}

/** A catalogued model, or what the hub says about a new one (written later, with the run). */
export type ResolvedModel = { catalogued: ModelRow } | { fromHub: CatalogueEntry };

/** A resolved model as a dry-run answers it: the catalogue's summary, or the hub's entry not catalogued yet. */
export function resolvedModelSummary(model: ResolvedModel) {
  return 'catalogued' in model
    ? { ...toModelSummary(model.catalogued), catalogued: true }
    : { ...publicCatalogueEntry(model.fromHub), catalogued: false };
}

/** A catalogue entry as listed: the summary plus how many approved runs it has. */
export type CatalogueModel = ModelSummary & { benchmarkCount: number; gated: boolean };
export type CatalogueTreeNode = CatalogueModel & { relation: string | null; finetunes: CatalogueTreeNode[] };

type CountedRow = ModelRow & { benchmark_count: number };

function toCatalogueModel(row: CountedRow): CatalogueModel {
  return { ...toModelSummary(row), benchmarkCount: row.benchmark_count, gated: row.gated };
}

const SEARCH_TEXT = "lower(hf_id) || ' ' || lower(display_name) || ' ' || coalesce(lower(family), '')";
const BY_RUN_COUNT = [
  { column: 'benchmark_count', order: 'desc' },
  { column: 'hf_id', order: 'asc' },
] as const;

/** The catalogue as model search keeps it in memory: the texts lowered and squashed by Postgres, as the SQL path compares them. */
async function loadModelSearchTable(db: Db): Promise<ModelSearchTable> {
  const rows = await db('models')
    .orderBy([...BY_RUN_COUNT])
    .select(
      'hf_id',
      'display_name',
      'family',
      'params',
      'benchmark_count',
      db.raw('lower(hf_id) as id_lower'),
      db.raw('lower(display_name) as name_lower'),
      db.raw(`${SEARCH_TEXT} as text`),
      db.raw(`${squashSeparatorsSql(SEARCH_TEXT)} as squashed`),
    );
  return new ModelSearchTable(
    rows.map((row) => ({
      hfId: row.hf_id,
      displayName: row.display_name,
      family: row.family,
      params: row.params,
      benchmarkCount: row.benchmark_count,
      idLower: row.id_lower,
      nameLower: row.name_lower,
      text: row.text,
      squashed: row.squashed,
    })),
  );
}

function findByHfId(db: Db, hfId: string): Promise<ModelRow | undefined> {
  return db<ModelRow>('models').whereRaw('lower(hf_id) = lower(?)', [hfId]).first();
}

/** A stored count below this share of the published total is a packed one (AWQ/GPTQ/MLX/MXFP4 elements). */
const PACKED_COUNT_RATIO = 0.75;

/**
 * Fills catalogue rows made before the curated table existed (or before it knew their
 * family) from `curatedModelFacts`: the MoE flag, the smaller active count, the lower
 * native bits, and the published total where the row has none, a guess from the name,
 * or a packed count (under 3/4 of the published total). Their runs' model facets follow.
 * Returns the ids of the rows changed. The rules' re-judge calls it before re-judging every
 * run (`plausibility.rejudgeIfRulesChanged`); a caller on its own must then recompute the
 * runs of those ids.
 */
export async function fillCuratedModelFacts(db: Db): Promise<string[]> {
  const rows: ModelRow[] = await db('models').select('*');
  const changed: string[] = [];
  for (const row of rows) {
    const curated = curatedModelFacts(row.hf_id, row.base_hf_id, row.family, row.params_approximate ? null : row.params);
    if (!curated) continue;
    // Packed counts are at least 2x low (two 4-bit weights per byte); honest counts differ by a few %.
    const takeTotal = row.params === null || row.params_approximate || row.params < PACKED_COUNT_RATIO * curated.totalB;
    const update = {
      is_moe: true,
      active_params: lowest([row.active_params, curated.activeB]),
      native_bits_per_weight: lowest([row.native_bits_per_weight, curated.nativeBitsPerWeight]),
      params: takeTotal ? curated.totalB : row.params,
      params_approximate: takeTotal ? false : row.params_approximate,
    };
    if (Object.entries(update).every(([column, value]) => row[column as keyof ModelRow] === value)) continue;
    await db('models').where({ id: row.id }).update(update);
    await db('speed_test_runs').where({ model_id: row.id }).update({ model_params: update.params, model_is_moe: true });
    changed.push(row.id);
  }
  return changed;
}

export function createModelsService({
  db,
  hub,
  hubMode,
  profile,
  plausibility,
  readIndex,
}: Pick<ServiceDeps, 'db' | 'hub' | 'hubMode' | 'profile' | 'readIndex'> & { plausibility: PlausibilityService }) {
  /** Writes a hub entry into the catalogue and links its finetune tree (see `catalogue` below). */
  async function catalogue(entry: CatalogueEntry): Promise<ModelRow> {
    assertVisibleWrite(db);
    const base = entry.base ? await findByHfId(db, entry.base.hfId) : undefined;
    const facts = catalogueFacts(entry, base);
    await db('models')
      .insert({
        hf_id: entry.hfId,
        display_name: entry.displayName,
        family: entry.family,
        params: facts.params,
        params_approximate: facts.paramsApproximate,
        active_params: facts.activeParams,
        is_moe: facts.isMoE,
        native_bits_per_weight: facts.nativeBitsPerWeight,
        base_model_id: base?.id ?? null,
        base_hf_id: entry.base?.hfId ?? null,
        base_relation: entry.base?.relation ?? null,
        hub_sha: entry.hubSha,
        gated: entry.gated,
      })
      .onConflict()
      .ignore();
    const row = (await findByHfId(db, entry.hfId))!;
    const adopted = await db('models')
      .whereRaw('lower(base_hf_id) = lower(?)', [row.hf_id])
      .whereNull('base_model_id')
      .update({
        base_model_id: row.id,
        // The base's count beats none, and beats a guess from the child's name.
        params: db.raw('case when params is null or params_approximate then coalesce(?, params) else params end', [row.params]),
        params_approximate: db.raw('case when params is null or params_approximate then ? else params_approximate end', [
          row.params_approximate,
        ]),
        // A quantization has its base's experts (the smaller active count) and at most its native bits.
        active_params: db.raw("case when base_relation = 'quantized' and ?::boolean then least(active_params, ?) else active_params end", [
          row.is_moe,
          row.active_params,
        ]),
        is_moe: db.raw("is_moe or (base_relation = 'quantized' and ?::boolean)", [row.is_moe]),
        native_bits_per_weight: db.raw(
          "case when base_relation = 'quantized' then least(native_bits_per_weight, ?) else native_bits_per_weight end",
          [row.native_bits_per_weight ?? null],
        ),
      })
      .returning(['id', 'params', 'is_moe']);
    // Runs carry their model's size and MoE flag for the filters, and they feed their verdict.
    for (const child of adopted)
      await db('speed_test_runs').where({ model_id: child.id }).update({ model_params: child.params, model_is_moe: child.is_moe });
    if (adopted.length > 0) await plausibility.recompute({ modelIds: adopted.map((child) => child.id) });
    return row;
  }

  /** The root of the base links above the search's best match for `words` (a base is catalogued before its children: no cycle). */
  async function baseOfBestMatch(words: string): Promise<{ hf_id: string; display_name: string } | undefined> {
    const match = everyTokenSql(SEARCH_TEXT, searchTokens(words), { squashed: true });
    const { rows } = await db.raw(
      `with recursive best as (
         select id from models where ${match.sql} order by benchmark_count desc, hf_id limit 1
       ), up(id, base_model_id, depth) as (
         select m.id, m.base_model_id, 0 from models m join best on best.id = m.id
         union all
         select m.id, m.base_model_id, up.depth + 1 from models m join up on m.id = up.base_model_id where up.depth < 16
       ) select m.hf_id, m.display_name from up join models m on m.id = up.id order by up.depth desc limit 1`,
      match.bindings,
    );
    return rows[0];
  }

  /**
   * The model a model box names, as people type it: a hub id (any case) names that
   * repository; words (any order, separators ignored: "llama 3.1 8b", `Qwen3-30B`) name
   * the base of the catalogue search's best match, so its quantizations and finetunes
   * come with it. `treeSize` counts the models of its tree, itself included. Null: no match.
   */
  async function pick(text: string): Promise<PickedModel | null> {
    const typed = text.trim();
    if (!typed) return null;
    const exact = await db('models').whereRaw('lower(hf_id) = lower(?)', [typed]).first('hf_id', 'display_name');
    const chosen = exact ?? (await baseOfBestMatch(typed));
    if (!chosen) return null;
    const { rows } = await db.raw(`select count(*)::int as n from (${MODEL_TREE_SQL}) t`, [chosen.hf_id, chosen.hf_id]);
    return { hfId: chosen.hf_id, displayName: chosen.display_name, byWords: !exact, treeSize: rows[0].n };
  }

  /** A catalogued model with its base and its children (NotFound when not catalogued). */
  async function withTree(hfId: string) {
    const row = (await findByHfId(db, hfId)) as CountedRow | undefined;
    if (!row) throw new NotFound(messages.modelNotCatalogued(hfId));
    const [base, children] = await Promise.all([
      row.base_model_id ? db<CountedRow>('models').where({ id: row.base_model_id }).first() : undefined,
      db<CountedRow>('models')
        .where({ base_model_id: row.id })
        .orderBy([...BY_RUN_COUNT]),
    ]);
    return {
      ...toCatalogueModel(row),
      hubSha: row.hub_sha,
      base: base ? toCatalogueModel(base) : null,
      children: children.map((child) => ({ ...toCatalogueModel(child), relation: child.base_relation })),
    };
  }

  return {
    findByHfId: (hfId: string) => findByHfId(db, hfId),

    /**
     * Catalogued models are never looked up again; others are checked on the hub (404 when it
     * has no such repo, 503 when it cannot answer). Offline, only the catalogue counts.
     */
    async resolve(hfId: string): Promise<ResolvedModel> {
      const catalogued = await findByHfId(db, hfId);
      if (catalogued) return { catalogued };
      if (hubMode === 'offline') throw new NotFound(messages.modelNotCataloguedOffline(hfId));
      const entry = catalogueEntryFromHub(await hub.getModel(hfId), hfId);
      // The hub may spell the id differently (case); that spelling may already be catalogued.
      const bySpelling = entry.hfId.toLowerCase() === hfId.toLowerCase() ? undefined : await findByHfId(db, entry.hfId);
      return bySpelling ? { catalogued: bySpelling } : { fromHub: entry };
    },

    /**
     * The model facts a run's verdict reads (size, MoE, active count, native bits, and the weights its peers share): the
     * catalogued row's, or those cataloguing the hub's entry would store, without writing.
     */
    async verdictFacts(model: ResolvedModel): Promise<RunForVerdict['model'] & WeightsFacts> {
      if ('catalogued' in model) return model.catalogued;
      const entry = model.fromHub;
      const facts = catalogueFacts(entry, entry.base ? await findByHfId(db, entry.base.hfId) : undefined);
      return {
        params: facts.params,
        active_params: facts.activeParams,
        is_moe: facts.isMoE,
        native_bits_per_weight: facts.nativeBitsPerWeight,
        hf_id: entry.hfId,
        base_hf_id: entry.base?.hfId ?? null,
        base_relation: entry.base?.relation ?? null,
      };
    },

    /**
     * Writes a hub entry into the catalogue (build this service on the caller's transaction,
     * a `writeVisibly` one: a new model changes the trees the read index resolves) and links
     * the finetune tree both ways: to its base when that is catalogued, and its
     * already-catalogued children to it. A model with no parameter count of its own takes its base's.
     */
    async catalogue(entry: CatalogueEntry): Promise<ModelRow> {
      return catalogue(entry);
    },

    /** The row of a resolved model: the catalogued one, or the hub's entry catalogued now (build this service on the writing transaction). */
    async catalogueIfNew(model: ResolvedModel): Promise<ModelRow> {
      return 'catalogued' in model ? model.catalogued : catalogue(model.fromHub);
    },

    /** Most-benchmarked first, then by id: what a visitor looks for first. */
    async list(query: { search?: string; limit: number; offset: number }) {
      const base = db<CountedRow>('models').modify((q) => {
        if (query.search) q.whereRaw(`${SEARCH_TEXT} like ?`, [containsLowercase(query.search)]);
      });
      const [rows, [{ total }]] = await Promise.all([
        base
          .clone()
          .orderBy([...BY_RUN_COUNT])
          .limit(query.limit)
          .offset(query.offset),
        base.clone().count<{ total: number }[]>('* as total'),
      ]);
      return { models: rows.map(toCatalogueModel), total, limit: query.limit, offset: query.offset };
    },

    /**
     * Base models with their finetunes, quants, adapters and merges nested (each marked
     * with its relation). A search keeps the trees that contain a match anywhere. The
     * catalogue is small next to the runs (thousands of rows), so the trees are built in memory.
     */
    async tree(query: { search?: string; limit: number; offset: number }) {
      const rows: CountedRow[] = await db('models')
        .select('*')
        .orderBy([...BY_RUN_COUNT]);
      const nodes = new Map<string, CatalogueTreeNode>(
        rows.map((row) => [row.id, { ...toCatalogueModel(row), relation: row.base_relation, finetunes: [] }]),
      );
      const roots: CatalogueTreeNode[] = [];
      for (const row of rows) {
        const parent = row.base_model_id ? nodes.get(row.base_model_id) : undefined;
        if (parent) parent.finetunes.push(nodes.get(row.id)!);
        else roots.push({ ...nodes.get(row.id)!, relation: null });
      }
      const needle = query.search?.toLowerCase();
      const matches = (node: CatalogueTreeNode): boolean =>
        !needle || `${node.hfId} ${node.displayName} ${node.family ?? ''}`.toLowerCase().includes(needle) || node.finetunes.some(matches);
      // Roots keep their own nodes; a child listed under two roots cannot happen (one base each).
      const kept = roots.map((root) => ({ ...root, finetunes: nodes.get(root.id)!.finetunes })).filter(matches);
      return { models: kept.slice(query.offset, query.offset + query.limit), total: kept.length, limit: query.limit, offset: query.offset };
    },

    /**
     * Every word of `q` in the id, name or family, in any order and with `-`/`_` ignored
     * ("llama 3.1 8b instruct", `qwen3moe` for `qwen3_moe`). Exact id first, then prefix
     * matches, then the rest; each group by run count.
     */
    async search(query: { q: string; limit: number }): Promise<ModelSearchHit[]> {
      // From memory while the read index listens (it tells when the catalogue or a run count may have changed).
      if (readIndex && (await readIndex.current())) {
        const table = await readIndex.fresh('model-search', () => loadModelSearchTable(db));
        return table.search(query.q, query.limit);
      }
      const q = query.q.toLowerCase();
      const prefix = `${escapeLike(q)}%`;
      const words = everyTokenSql(SEARCH_TEXT, searchTokens(q), { squashed: true });
      const rows: CountedRow[] = await db('models')
        .whereRaw(words.sql, words.bindings)
        .orderByRaw(
          `case when lower(hf_id) = ? then 0 when lower(hf_id) like ? or lower(display_name) like ? then 1 else 2 end, benchmark_count desc, hf_id`,
          [q, prefix, prefix],
        )
        .limit(query.limit);
      return rows.map((row) => ({
        hfId: row.hf_id,
        displayName: row.display_name,
        family: row.family,
        params: row.params,
        benchmarkCount: row.benchmark_count,
      }));
    },

    pick,

    /**
     * A leaderboard address's model box (`hfId`, `scope`) read as its page reads it: the
     * model `pick` names and, unless `scope=model` ("this repo only"), its tree
     * (`scope=tree`). `query` is what to ask the leaderboard for; null without `hfId`.
     */
    async readModelBox(params: Readonly<Record<string, unknown>>): Promise<ModelBoxRead | null> {
      const typed = params.hfId;
      if (typeof typed !== 'string') return null;
      const picked = await pick(typed);
      if (!picked) return { typed, picked, scope: params.scope, query: {} };
      // Revision 1 has no `scope`: its boards read the model alone.
      if (!profile.speedTests.leaderboard.extendedFilters) return { typed, picked, scope: 'model', query: { hfId: picked.hfId } };
      const scope = params.scope ?? 'tree';
      return { typed, picked, scope, query: { hfId: picked.hfId, scope } };
    },

    /** One model with its base, its children and summary figures of its approved runs. */
    async detail(hfId: string) {
      const entry = await withTree(hfId);
      // The API's summary keeps its shape; the page reads its scope's figures (`scopeFigures`).
      const {
        fastest: _fastest,
        fastestSingleStream: _single,
        models: _models,
        singleStreamByHardwareClass: _singleStream,
        ...summary
      } = await runFigures(db, entry, 'model', { fastest: false });
      return { ...entry, summary };
    },

    /** One model with its base and its children, without figures (a model page counts its own scope). */
    withTree,

    /**
     * The figures of a model page's scope (the model alone, or its tree of finetunes and
     * quantizations): the same runs its table lists, so counts and "fastest" agree with it.
     */
    scopeFigures(model: { id: string; hfId: string }, scope: ModelScope) {
      return runFigures(db, model, scope);
    },
  };
}

/**
 * Counts and bests of the approved runs in a scope. "Fastest" is the highest output tok/s
 * of any run listed (throughput runs included, as the table lists them); the fastest
 * single-stream run is given apart, since that is what the leaderboard ranks by default.
 */
async function runFigures(db: Db, model: { id: string; hfId: string }, scope: ModelScope, { fastest: withFastest = true } = {}) {
  const [condition, bindings] = scopeCondition(model, scope);
  const runs = () => db('speed_test_runs as r').where('r.status', 'APPROVED').whereRaw(condition, bindings);
  const fastestOf = (q: Knex.QueryBuilder) =>
    q
      .whereNotNull('r.tok_s_out')
      .orderByRaw('r.tok_s_out desc, r.created_at asc, r.id asc')
      .first('r.id', 'r.tok_s_out', 'r.active_sequences');
  const [figures, byClass, fastest, fastestSingleStream] = await Promise.all([
    runs().first(
      db.raw('count(*)::int as runs'),
      db.raw('max(r.tok_s_out) as best_tok_s_out'),
      db.raw('count(distinct r.hardware_id)::int as hardware_profiles'),
      db.raw('count(distinct r.model_id)::int as models'),
      db.raw('max(r.created_at) as latest_run_at'),
    ),
    runs()
      .groupBy('r.hw_class')
      .orderBy('r.hw_class')
      .select(
        'r.hw_class',
        db.raw('count(*)::int as runs'),
        db.raw('max(r.tok_s_out) as best_tok_s_out'),
        db.raw('count(*) filter (where r.active_sequences = 1)::int as single_stream_runs'),
        db.raw('max(r.tok_s_out) filter (where r.active_sequences = 1) as best_single_stream_tok_s_out'),
      ),
    withFastest ? fastestOf(runs()) : undefined,
    withFastest ? fastestOf(runs().where('r.active_sequences', 1)) : undefined,
  ]);
  const runOf = (row: { id: string; tok_s_out: number; active_sequences: number } | undefined) =>
    row ? { id: row.id, tokSOut: row.tok_s_out, activeSequences: row.active_sequences } : null;
  return {
    runs: figures.runs as number,
    bestTokSOut: figures.best_tok_s_out as number | null,
    hardwareProfiles: figures.hardware_profiles as number,
    /** Models of the scope with at least one run. */
    models: figures.models as number,
    latestRunAt: figures.latest_run_at ? (figures.latest_run_at as Date).toISOString() : null,
    byHardwareClass: Object.fromEntries(
      byClass.map((c: { hw_class: string; runs: number; best_tok_s_out: number | null }) => [
        c.hw_class,
        { runs: c.runs, bestTokSOut: c.best_tok_s_out },
      ]),
    ),
    /** The pages' figures by class: single-stream runs only, as the leaderboard ranks them by default. */
    singleStreamByHardwareClass: Object.fromEntries(
      byClass.map((c: { hw_class: string; single_stream_runs: number; best_single_stream_tok_s_out: number | null }) => [
        c.hw_class,
        { runs: c.single_stream_runs, bestTokSOut: c.best_single_stream_tok_s_out },
      ]),
    ),
    fastest: runOf(fastest),
    fastestSingleStream: runOf(fastestSingleStream),
  };
}

export type ModelsService = ReturnType<typeof createModelsService>;
