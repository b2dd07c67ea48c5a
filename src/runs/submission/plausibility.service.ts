import {
  judgeOnStoredBoard,
  loadBoard,
  peerKeysOf,
  type RunForVerdict,
  verdictColumns,
  verdictRulesFingerprint,
  weightsIdOf,
} from './verdict.ts';
import type { Db } from '../../db/knex.ts';
import type { PeerComparison } from '../../lib/peer-verdict.ts';
import type { NormalisedSpeedTest } from './normalise.ts';
import { refreshHardwareSearch } from './hardware-search.ts';
import type { ServiceDeps } from '../../services/deps.ts';
import { fillCuratedModelFacts } from '../../services/models.service.ts';
import { writeVisibly } from '../../services/visible-writes.ts';

/** Runs read and re-judged per statement. */
const BATCH = 1000;
/** Only one instance re-judges after a deploy; the others leave it to that one. */
const REJUDGE_LOCK = 'verdict-rules-rejudge';

/** Devices re-judged per call of `rejudgeQueued`. */
const REJUDGE_DEVICES = 20;
/** Who the audit log names for verdicts re-judged because a run's peers changed. */
export const VERDICT_ACTOR = 'verdicts';

/** Which runs to re-judge: those of these models, hardware profiles or devices (`device_key`); all when none is given. */
export interface RecomputeScope {
  modelIds?: string[];
  hardwareIds?: string[];
  deviceKeys?: string[];
  /** Only approved runs (a rejected or withdrawn run is judged again when it comes back). */
  approvedOnly?: boolean;
}

/** What `recompute` reads of a stored run. */
interface StoredRunRow {
  id: string;
  user_id: string;
  tok_s_out: number | null;
  batch_size: number;
  quantization: string;
  engine_flags: RunForVerdict['engineFlags'];
  plausibility: string;
  decode_bound_tok_s: number | null;
  plausibility_reason: string | null;
  verdict_peers: PeerComparison | null;
  device_key: string | null;
  setup_key: string | null;
  hf_id: string;
  base_hf_id: string | null;
  base_relation: string | null;
  params: number | null;
  active_params: number | null;
  is_moe: boolean;
  native_bits_per_weight: number | null;
  details: RunForVerdict['hardware'] & NormalisedSpeedTest['hardware'];
  engine_name: string;
  engine_version: string | null;
}

/** Whether two peer comparisons say the same (a jsonb column reads its keys back in its own order). */
const samePeers = (a: PeerComparison | null, b: PeerComparison | null) =>
  a === b || (a !== null && b !== null && a.count === b.count && a.bestTokS === b.bestTokS && a.ratio === b.ratio && a.basis === b.basis);

/** A verdict a re-judging changed. */
export interface VerdictChange {
  id: string;
  before: string;
  after: string;
  reason: string | null;
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
  async function recompute(scope: RecomputeScope = {}, db: Db = ownDb): Promise<VerdictChange[]> {
    const { modelIds, hardwareIds, deviceKeys, approvedOnly } = scope;
    const changes: VerdictChange[] = [];
    // A migration older than the peer verdicts' recomputes before their columns exist: the roofline alone then.
    const { rows: peerColumns } = await db.raw(
      "select 1 from information_schema.columns where table_name = 'speed_test_runs' and column_name = 'device_key' and table_schema = current_schema()",
    );
    const withPeers = peerColumns.length > 0;
    let after = '00000000-0000-0000-0000-000000000000';
    for (;;) {
      const rows = await db('speed_test_runs as r')
        .join('models as m', 'm.id', 'r.model_id')
        .join('hardware_profiles as h', 'h.id', 'r.hardware_id')
        .join('engines as e', 'e.id', 'r.engine_id')
        .modify((q) => {
          if (modelIds) q.whereIn('r.model_id', modelIds);
          if (hardwareIds) q.whereIn('r.hardware_id', hardwareIds);
          if (deviceKeys) q.whereIn('r.device_key', deviceKeys);
          if (approvedOnly) q.where('r.status', 'APPROVED');
        })
        .where('r.id', '>', after)
        .orderBy('r.id')
        .limit(BATCH)
        .select(
          'r.id',
          'r.user_id',
          'r.tok_s_out',
          'r.batch_size',
          'r.quantization',
          'r.engine_flags',
          'r.plausibility',
          'r.decode_bound_tok_s',
          'r.plausibility_reason',
          'm.hf_id',
          'm.base_hf_id',
          'm.base_relation',
          'm.params',
          'm.active_params',
          'm.is_moe',
          'h.details',
          'e.name as engine_name',
          'e.version as engine_version',
        )
        // Read by name from the row: an older migration recomputes before these columns exist.
        .select(db.raw("(to_jsonb(m) ->> 'native_bits_per_weight')::float8 as native_bits_per_weight"))
        .select(
          db.raw(
            "to_jsonb(r) -> 'verdict_peers' as verdict_peers, to_jsonb(r) ->> 'device_key' as device_key, to_jsonb(r) ->> 'setup_key' as setup_key",
          ),
        );
      if (rows.length === 0) return changes;
      const runs = (rows as StoredRunRow[]).map((row) => {
        const facts: RunForVerdict = {
          tokSOut: row.tok_s_out,
          batchSize: row.batch_size,
          quantization: row.quantization,
          engineName: row.engine_name,
          engineVersion: row.engine_version,
          engineFlags: row.engine_flags,
          model: row,
          hardware: row.details,
        };
        return { row, facts, keys: withPeers ? peerKeysOf({ ...facts, weightsId: weightsIdOf(row), hardware: row.details }) : null };
      });
      const board = await loadBoard(
        db,
        runs.flatMap(({ keys }) => (keys ? [keys.deviceKey] : [])),
      );
      const updates: Record<string, unknown>[] = [];
      for (const { row, facts, keys } of runs) {
        const judged = verdictColumns(judgeOnStoredBoard(facts, keys, board, { id: row.id, userId: row.user_id }));
        const stored = [
          row.plausibility,
          row.decode_bound_tok_s === null ? null : Number(row.decode_bound_tok_s),
          row.plausibility_reason,
          row.device_key,
          row.setup_key,
        ];
        const now = [judged.plausibility, judged.decode_bound_tok_s, judged.plausibility_reason, judged.device_key, judged.setup_key];
        if (now.some((value, i) => value !== stored[i]) || !samePeers(judged.verdict_peers, row.verdict_peers ?? null)) {
          updates.push({ id: row.id, ...judged });
          if (judged.plausibility !== row.plausibility)
            changes.push({ id: row.id, before: row.plausibility, after: judged.plausibility, reason: judged.plausibility_reason });
        }
      }
      if (updates.length > 0) {
        const peerSet = withPeers ? ', verdict_peers = v.verdict_peers, device_key = v.device_key, setup_key = v.setup_key' : '';
        await db.raw(
          `update speed_test_runs r set plausibility = v.plausibility, decode_bound_tok_s = v.decode_bound_tok_s,
                  plausibility_reason = v.plausibility_reason${peerSet}
             from jsonb_to_recordset(?::jsonb) as v(id uuid, plausibility text, decode_bound_tok_s double precision, plausibility_reason text,
                  verdict_peers jsonb, device_key text, setup_key text)
            where r.id = v.id`,
          [JSON.stringify(updates)],
        );
      }
      after = rows.at(-1)!.id;
    }
  }

  return {
    /** Re-judges stored runs: all, or those of some models, profiles, devices or runs (see `recompute` above); returns how many changed verdict. */
    recompute: async (scope?: RecomputeScope) => (await recompute(scope)).length,

    /**
     * Re-judges the runs of devices whose board changed (a run joined or left it: the
     * trigger of 20261202010000_peer_verdicts queued them), at most `maxDevices` devices per
     * call, in one transaction per call: claimed with skip locked, so instances share the
     * queue. Every verdict that changes gets an audit entry saying why. Returns the devices
     * done and the verdicts changed; 0 devices: the queue is empty.
     */
    async rejudgeQueued(maxDevices = REJUDGE_DEVICES): Promise<{ devices: number; changed: number }> {
      return writeVisibly(deps, async (trx) => {
        const { rows } = await trx.raw(
          `delete from peer_rejudge_queue where device_key in (
             select device_key from peer_rejudge_queue order by queued_at, device_key limit ? for update skip locked)
           returning device_key`,
          [maxDevices],
        );
        const devices = rows.map((row: { device_key: string }) => row.device_key);
        if (devices.length === 0) return { devices: 0, changed: 0 };
        const changes = await recompute({ deviceKeys: devices, approvedOnly: true }, trx);
        if (changes.length > 0) {
          const labels = await trx('speed_test_runs as r')
            .join('models as m', 'm.id', 'r.model_id')
            .join('users as u', 'u.id', 'r.user_id')
            .whereIn(
              'r.id',
              changes.map((change) => change.id),
            )
            .select('r.id', 'm.hf_id', 'u.username');
          const labelOf = new Map(labels.map((row: { id: string; hf_id: string; username: string }) => [row.id, row]));
          await trx('admin_audit_log').insert(
            changes.map((change) => {
              const label = labelOf.get(change.id);
              return {
                actor_id: null,
                actor_username: VERDICT_ACTOR,
                action: 'run.rejudged',
                target_kind: 'speed_test_run',
                target_id: change.id,
                target_label: `${label?.hf_id ?? 'run'} by @${label?.username ?? '?'} (${change.id.slice(0, 8)})`.slice(0, 300),
                reason: `${change.before} -> ${change.after} (its peers changed): ${change.reason ?? ''}`.slice(0, 2000),
              };
            }),
          );
        }
        return { devices: devices.length, changed: changes.length };
      });
    },

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
        const changed = (await recompute({}, trx)).length;
        await trx('verdict_rules').insert({ id: 1, fingerprint, judged_at: trx.fn.now() }).onConflict('id').merge();
        return { rejudged: true, changed };
      });
    },
  };
}

export type PlausibilityService = ReturnType<typeof createPlausibilityService>;
