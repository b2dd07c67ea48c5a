import { buckets } from '../../constants.ts';
import type { ServiceDeps } from '../../services/deps.ts';
import { scopeCondition, type ModelScope } from '../../services/model-tree.ts';
import type { SpeedTestReads, SpeedTestRun } from './speed-test-reads.ts';
import { toSpeedTestRun } from '../run-json.ts';
import { evidenceSummary, type EvidenceSummary } from '../submission/evidence.ts';

/** Where a run stands: its place (1 = first) among `total` runs, as the leaderboard ranks them. */
export interface Standing {
  rank: number;
  total: number;
}

/** The leaderboard's default order (output tok/s, ties to the earliest run), for `r` runs. */
const BOARD_ORDER = 'r.tok_s_out desc nulls last, r.created_at asc, r.id asc';

/**
 * What a run's page and the compare view show around a run: its rank among its model's and
 * its hardware profile's runs, runs like it, and several runs side by side; and the runs of
 * a model page's charts.
 */
export function createSpeedTestContextService({ db, profile, reads }: Pick<ServiceDeps, 'db' | 'profile'> & { reads: SpeedTestReads }) {
  // The board ranks a run among runs of its streams bucket (DECISIONS.md "Buckets"): revision 3
  // counts aggregate active sequences, earlier revisions the batch size; 8 takes 8 and more.
  const streamsColumn = profile.speedTests.batchSizeTimesConcurrency ? 'active_sequences' : 'batch_size';
  const openEnded = buckets.batchSizeOpenEnded;

  return {
    /** What the run's page shows of its evidence (the digests, the engine's own figures, the sample count). */
    async evidence(runId: string): Promise<EvidenceSummary | null> {
      const row = await db('speed_test_runs').where({ id: runId }).first('prompt_sha256', 'output_sha256', 'engine_timings_raw', 'samples');
      return row ? evidenceSummary(row) : null;
    },

    /**
     * The run's rank among the approved runs of its model and of its hardware profile in its
     * streams bucket, by output tok/s as the leaderboard ranks them: one statement, exact.
     * Null when the run is not approved (it ranks nowhere).
     */
    async standings(runId: string): Promise<{ model: Standing; hardware: Standing; streams: number } | null> {
      const { rows } = await db.raw(
        `with me as (
           select id, model_id, hardware_id, tok_s_out, created_at, ${streamsColumn} as streams
           from speed_test_runs where id = ? and status = 'APPROVED'
         ), peers as (
           select r.model_id = me.model_id as same_model, r.hardware_id = me.hardware_id as same_hardware,
             ((me.tok_s_out is null and r.tok_s_out is not null) or r.tok_s_out > me.tok_s_out
               or (r.tok_s_out is not distinct from me.tok_s_out and (r.created_at, r.id) < (me.created_at, me.id))) as ahead
           from speed_test_runs r, me
           where r.status = 'APPROVED' and (r.model_id = me.model_id or r.hardware_id = me.hardware_id)
             and case when me.streams >= ? then r.${streamsColumn} >= ? else r.${streamsColumn} = me.streams end
         )
         select (select streams from me) as streams,
           count(*) filter (where same_model)::int as model_total, count(*) filter (where same_model and ahead)::int as model_ahead,
           count(*) filter (where same_hardware)::int as hardware_total, count(*) filter (where same_hardware and ahead)::int as hardware_ahead
         from peers`,
        [runId, openEnded, openEnded],
      );
      const row = rows[0];
      if (!row || row.streams === null) return null;
      return {
        streams: Math.min(row.streams as number, openEnded),
        model: { rank: row.model_ahead + 1, total: row.model_total },
        hardware: { rank: row.hardware_ahead + 1, total: row.hardware_total },
      };
    },

    /**
     * Other approved runs of the same model on the same class of hardware in the run's
     * streams bucket (as it ranks: a single-stream run's peers are single-stream), fastest first.
     */
    async similar(
      run: { id: string; modelId: string; hardware: { hwClass: string } },
      limit: number,
      viewerId: string | null,
    ): Promise<SpeedTestRun[]> {
      const rows = await reads
        .withDocuments()
        .select(reads.documentColumns(viewerId))
        .where({ 'r.model_id': run.modelId, 'r.hw_class': run.hardware.hwClass, 'r.status': 'APPROVED' })
        .whereNot('r.id', run.id)
        .whereRaw(`case when me.streams >= ? then r.${streamsColumn} >= ? else r.${streamsColumn} = me.streams end`, [openEnded, openEnded])
        .joinRaw(`cross join (select ${streamsColumn} as streams from speed_test_runs where id = ?) as me`, [run.id])
        .orderByRaw(BOARD_ORDER)
        .limit(limit);
      return rows.map((row: Parameters<typeof toSpeedTestRun>[1]) => toSpeedTestRun(profile, row));
    },

    /** The approved runs among `ids` (in the order asked); ids that name none are left out. */
    async approvedRuns(ids: readonly string[], viewerId: string | null): Promise<SpeedTestRun[]> {
      if (ids.length === 0) return [];
      const rows = await reads
        .withDocuments()
        .select([...reads.documentColumns(viewerId), 'r.id'])
        .whereIn('r.id', ids)
        .where('r.status', 'APPROVED');
      const byId = new Map(
        rows.map((row: { id: string } & Parameters<typeof toSpeedTestRun>[1]) => [row.id, toSpeedTestRun(profile, row)]),
      );
      return ids.flatMap((id) => byId.get(id) ?? []);
    },

    /** The fastest single-stream runs of a model page's scope, for its charts (throughput runs are not drawn beside them). */
    async fastestOfModel(model: { id: string; hfId: string }, scope: ModelScope, limit: number): Promise<SpeedTestRun[]> {
      const [condition, bindings] = scopeCondition(model, scope);
      const rows = await reads
        .withDocuments()
        .select(reads.documentColumns(null))
        .where('r.status', 'APPROVED')
        .where('r.active_sequences', 1)
        .whereRaw(condition, bindings)
        .orderByRaw(BOARD_ORDER)
        .limit(limit);
      return rows.map((row: Parameters<typeof toSpeedTestRun>[1]) => toSpeedTestRun(profile, row));
    },
  };
}
