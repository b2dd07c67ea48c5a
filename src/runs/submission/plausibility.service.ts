import { runVerdict, verdictColumns, verdictRulesFingerprint } from './verdict.ts';
import type { Db } from '../../db/knex.ts';
import { refreshHardwareSearch } from './hardware-search.ts';
import type { ServiceDeps } from '../../services/deps.ts';
import { fillCuratedModelFacts } from '../../services/models.service.ts';
import { writeVisibly } from '../../services/visible-writes.ts';

/** Runs read and re-judged per statement. */
const BATCH = 1000;
/** Only one instance re-judges after a deploy; the others leave it to that one. */
const REJUDGE_LOCK = 'verdict-rules-rejudge';

/** Which runs to re-judge: those of these models and/or these hardware profiles; all when neither is given. */
export interface RecomputeScope {
  modelIds?: string[];
  hardwareIds?: string[];
}

export function createPlausibilityService(deps: Pick<ServiceDeps, 'db' | 'readIndex'>) {
  const { db: ownDb } = deps;
  /**
   * Re-judges stored runs (all, or those of some models or hardware profiles) after the
   * inputs changed: a model's size became known, an admin mapped a hardware name, or the
   * catalogue or rules were updated. Only runs whose
   * verdict changes are written (one statement per batch), so a million unchanged runs
   * cost reads, not a rewrite of every document. Returns how many changed.
   */
  async function recompute(scope: RecomputeScope = {}, db: Db = ownDb): Promise<number> {
    const { modelIds, hardwareIds } = scope;
    let changed = 0;
    let after = '00000000-0000-0000-0000-000000000000';
    for (;;) {
      const rows = await db('speed_test_runs as r')
        .join('models as m', 'm.id', 'r.model_id')
        .join('hardware_profiles as h', 'h.id', 'r.hardware_id')
        .join('engines as e', 'e.id', 'r.engine_id')
        .modify((q) => {
          if (modelIds) q.whereIn('r.model_id', modelIds);
          if (hardwareIds) q.whereIn('r.hardware_id', hardwareIds);
        })
        .where('r.id', '>', after)
        .orderBy('r.id')
        .limit(BATCH)
        .select(
          'r.id',
          'r.tok_s_out',
          'r.batch_size',
          'r.quantization',
          'r.engine_flags',
          'r.plausibility',
          'r.decode_bound_tok_s',
          'r.plausibility_reason',
          'm.params',
          'm.active_params',
          'm.is_moe',
          'h.details',
          'e.name as engine_name',
          'e.version as engine_version',
        )
        // Read by name from the row: an older migration recomputes before this column exists.
        .select(db.raw("(to_jsonb(m) ->> 'native_bits_per_weight')::float8 as native_bits_per_weight"));
      if (rows.length === 0) return changed;
      const updates: [string, string, number | null, string][] = [];
      for (const row of rows) {
        const columns = verdictColumns(
          runVerdict({
            tokSOut: row.tok_s_out,
            batchSize: row.batch_size,
            quantization: row.quantization,
            engineName: row.engine_name,
            engineVersion: row.engine_version,
            engineFlags: row.engine_flags,
            model: row,
            hardware: row.details,
          }),
        );
        const stored = [row.plausibility, row.decode_bound_tok_s === null ? null : Number(row.decode_bound_tok_s), row.plausibility_reason];
        const judged = [columns.plausibility, columns.decode_bound_tok_s, columns.plausibility_reason];
        if (judged.some((value, i) => value !== stored[i]))
          updates.push([row.id, columns.plausibility, columns.decode_bound_tok_s, columns.plausibility_reason]);
      }
      if (updates.length > 0) {
        await db.raw(
          `update speed_test_runs r set plausibility = v.plausibility, decode_bound_tok_s = v.bound, plausibility_reason = v.reason
             from jsonb_to_recordset(?::jsonb) as v(id uuid, plausibility text, bound double precision, reason text)
            where r.id = v.id`,
          [JSON.stringify(updates.map(([id, plausibility, bound, reason]) => ({ id, plausibility, bound, reason })))],
        );
        changed += updates.length;
      }
      after = rows.at(-1)!.id;
    }
  }

  return {
    /** Re-judges stored runs: all, or those of some models or profiles (see `recompute` above). */
    recompute: (scope?: RecomputeScope) => recompute(scope),

    /**
     * After a deploy that changed the rules, fills catalogue rows from the curated table of
     * model facts (`fillCuratedModelFacts`), re-judges every stored run once and records
     * the rules' fingerprint; a no-op when the stored verdicts already follow these rules,
     * or while another instance holds the lock (it is doing the same work).
     */
    async rejudgeIfRulesChanged(): Promise<{ rejudged: boolean; changed: number }> {
      const fingerprint = verdictRulesFingerprint();
      const current = await ownDb('verdict_rules').where({ id: 1 }).first('fingerprint');
      if (current?.fingerprint === fingerprint) return { rejudged: false, changed: 0 };
      // Verdicts and model facts are on the runs' documents and filters.
      return writeVisibly(deps, async (trx) => {
        const { rows } = await trx.raw('select pg_try_advisory_xact_lock(hashtext(?)) as locked', [REJUDGE_LOCK]);
        if (!rows[0].locked) return { rejudged: false, changed: 0 };
        // Model facts first (the curated table is part of the rules), then every verdict.
        await fillCuratedModelFacts(trx);
        // A new catalogue may name devices differently: the hardwareName search follows.
        await refreshHardwareSearch(trx);
        const changed = await recompute({}, trx);
        await trx('verdict_rules').insert({ id: 1, fingerprint, judged_at: trx.fn.now() }).onConflict('id').merge();
        return { rejudged: true, changed };
      });
    },
  };
}

export type PlausibilityService = ReturnType<typeof createPlausibilityService>;
