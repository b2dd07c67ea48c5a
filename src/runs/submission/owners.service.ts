import { RUN_CORRECTION_WINDOW_HOURS } from '../../constants.ts';
import type { Db } from '../../db/knex.ts';
import { canonicalJson } from '../../lib/canonical-json.ts';
import { Conflict, NotFound } from '../../lib/errors.ts';
import { submittedHardware, type NormalisedHardware } from './normalise.ts';
import { parseOrThrow } from '../../lib/validation.ts';
import { messages } from '../../messages.ts';
import { speedTestSubmissionSchema } from './speed-test.schema.ts';
import type { ServiceDeps, Transactional } from '../../services/deps.ts';
import { writeVisibly } from '../../services/visible-writes.ts';
import { hideSpeedTest, lockSpeedTest, speedTestLabel, type LockedSpeedTest } from './moderation.service.ts';
import type { ModelsService } from '../../services/models.service.ts';
import type { Page, SpeedTestFilter, SpeedTestReads, SpeedTestRun } from '../reads/speed-test-reads.ts';
import { toSpeedTestRun } from '../run-json.ts';
import type { ReplicationsService } from '../reads/replications.service.ts';
import { submissionOfStoredRun, validateSubmission } from './speed-tests.service.ts';

const CORRECTION_WINDOW_MS = RUN_CORRECTION_WINDOW_HOURS * 3_600_000;

/** What only a run's owner (and admins) see of it beyond its document. */
export interface OwnRunFacts {
  rejectedReason: string | null;
  rejectedAt: Date | null;
  withdrawnAt: Date | null;
  correctedAt: Date | null;
  /** Until when the owner may correct it; null once it cannot be corrected (too old, rejected or withdrawn). */
  correctableUntil: Date | null;
}

export type OwnRun = SpeedTestRun & OwnRunFacts;

export interface OwnRunList {
  benchmarks: OwnRun[];
  total: number;
  limit: number;
  offset: number;
}

interface FactsRow {
  id: string;
  status: string;
  created_at: Date;
  rejected_reason: string | null;
  rejected_at: Date | null;
  withdrawn_at: Date | null;
  corrected_at: Date | null;
}

const correctableUntil = (status: string, createdAt: Date, now: Date): Date | null => {
  const until = new Date(createdAt.getTime() + CORRECTION_WINDOW_MS);
  return status === 'APPROVED' && now < until ? until : null;
};

/** A correction is refused (409) for a run that is not approved, or older than the window. */
function assertCorrectable(status: string, createdAt: Date, now: Date): void {
  if (status !== 'APPROVED') throw new Conflict(messages.cannotCorrect(status));
  if (!correctableUntil(status, createdAt, now)) throw new Conflict(messages.correctionWindowClosed(RUN_CORRECTION_WINDOW_HOURS));
}

/** The owner's correction over the stored submission: fields given replace the stored ones, `null` drops one. */
/** `base` with each change applied: a value replaces the field, `null` drops it, `undefined` leaves it. */
function applyChanges(base: Record<string, unknown>, changes: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...base };
  for (const [field, value] of Object.entries(changes)) {
    if (value === undefined) continue;
    if (value === null) delete merged[field];
    else merged[field] = value;
  }
  return merged;
}

const hasPower = (submission: Record<string, unknown>) =>
  Boolean(submission.gpuPowerWatts) || Boolean((submission.hardware as { powerWatts?: unknown } | undefined)?.powerWatts);

function mergeCorrection(
  profile: ServiceDeps['profile'],
  stored: Record<string, unknown>,
  correction: Record<string, unknown>,
): Record<string, unknown> {
  const merged = applyChanges(stored, correction);
  // An engine's canonical repository was filled in for the old engine, not given: it goes with it.
  const canonical = profile.speedTests.canonicalEngineRepositories as Record<string, string | undefined>;
  if (
    correction.engineRepository === undefined &&
    merged.engineName !== stored.engineName &&
    stored.engineRepository === canonical[String(stored.engineName)]
  ) {
    delete merged.engineRepository;
  }
  // Watts the owner types are stated, whatever the stored run's measured ones were; and a
  // source stays only while there is power for it to describe.
  const wattsChanged =
    correction.gpuPowerWatts !== undefined && JSON.stringify(correction.gpuPowerWatts) !== JSON.stringify(stored.gpuPowerWatts);
  if (correction.powerSource === undefined && (wattsChanged || !hasPower(merged))) delete merged.powerSource;
  return merged;
}

const shown = (value: unknown) => {
  const text = value === undefined ? '(none)' : JSON.stringify(value);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
};

/**
 * A submission as `path: value` leaves (`hardware.vramGb`, `hardware.gpus[1].count`), so a
 * change inside an object reads as the field that changed, not as two JSON objects. A list
 * of plain values is one leaf; null and missing are the same (nothing given).
 */
function leavesOf(value: unknown, path: string, into: Map<string, unknown>): Map<string, unknown> {
  if (value === null || value === undefined) return into;
  if (Array.isArray(value) && value.some((item) => item !== null && typeof item === 'object')) {
    value.forEach((item, index) => leavesOf(item, `${path}[${index}]`, into));
  } else if (!Array.isArray(value) && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) leavesOf(item, path ? `${path}.${key}` : key, into);
  } else {
    into.set(path, value);
  }
  return into;
}

/**
 * The audit entry's "what changed": each submitted value that changed, `field: old -> new`,
 * compared canonically (the order of an object's keys is not a change).
 */
function changesOf(before: Record<string, unknown>, after: Record<string, unknown>): string {
  const [old, now] = [leavesOf(before, '', new Map()), leavesOf(after, '', new Map())];
  const changed = [...new Set([...old.keys(), ...now.keys()])].filter(
    (path) => canonicalJson(old.get(path)) !== canonicalJson(now.get(path)),
  );
  if (changed.length === 0) return 'Re-validated; no field changed';
  return `Changed ${changed.map((path) => `${path}: ${shown(old.get(path))} -> ${shown(now.get(path))}`).join('; ')}`.slice(0, 2000);
}

/**
 * Owners and their own speed-test runs (DECISIONS.md "Speed-test ranking"): correct one
 * within 24 hours of submitting (the same validation and normalisation as a submission),
 * withdraw one at any time (hidden like a rejected run), and list their runs in every
 * status. Both writes are audited with the owner as the actor; neither uses the
 * submission window. Another user's run is a 404, as a missing one.
 */
export function createSpeedTestOwnersService(
  deps: ServiceDeps & Transactional & { models: ModelsService; reads: SpeedTestReads; replications: ReplicationsService },
) {
  const { db, profile, clock, models, reads, replications, withTransaction } = deps;

  async function factsOf(ids: string[]): Promise<Map<string, OwnRunFacts>> {
    if (ids.length === 0) return new Map();
    const rows: FactsRow[] = await db('speed_test_runs')
      .whereIn('id', ids)
      .select('id', 'status', 'created_at', 'rejected_reason', 'rejected_at', 'withdrawn_at', 'corrected_at');
    const now = clock.now();
    return new Map(
      rows.map((row) => [
        row.id,
        {
          rejectedReason: row.rejected_reason,
          rejectedAt: row.rejected_at,
          withdrawnAt: row.withdrawn_at,
          correctedAt: row.corrected_at,
          correctableUntil: correctableUntil(row.status, row.created_at, now),
        },
      ]),
    );
  }

  /** The owner's runs matching `filter`, newest first, each with its owner-only facts. */
  async function ownRuns(userId: string, filter: SpeedTestFilter, page?: Page): Promise<OwnRun[]> {
    const rows = await reads.findDocuments((q) => filter(q.where('r.user_id', userId)), page, userId);
    const runs = rows.map((row) => toSpeedTestRun(profile, row));
    const facts = await factsOf(runs.map((run) => run.id));
    return runs.map((run) => ({ ...run, ...facts.get(run.id)! }));
  }

  /** One of the owner's runs in any status; 404 for a missing run and for another user's. */
  async function ownRun(userId: string, id: string): Promise<OwnRun> {
    const [run] = await ownRuns(userId, (q) => q.where('r.id', id));
    if (!run) throw new NotFound(messages.speedTestNotFound);
    return run;
  }

  /** The locked run row when `userId` owns it; a 404 otherwise (never revealing that it exists). */
  async function lockOwnRun(trx: Db, userId: string, id: string): Promise<LockedSpeedTest> {
    const row = await lockSpeedTest(trx, id);
    if (row.user_id !== userId) throw new NotFound(messages.speedTestNotFound);
    return row;
  }

  /** The owner's run as submitted (rebuilt from what is stored), with what a correction checks first. */
  async function storedSubmission(userId: string, id: string) {
    const row = await db('speed_test_runs as r')
      .join('models as m', 'm.id', 'r.model_id')
      .join('engines as e', 'e.id', 'r.engine_id')
      .join('hardware_profiles as h', 'h.id', 'r.hardware_id')
      .where({ 'r.id': id, 'r.user_id': userId })
      .first(
        'r.*',
        'm.hf_id as stored_hf_id',
        'h.details as stored_hardware',
        'e.name as stored_engine_name',
        'e.version as stored_engine_version',
        'e.repository as stored_engine_repository',
        'e.build as stored_engine_build',
        'e.commit as stored_engine_commit',
      );
    if (!row) throw new NotFound(messages.speedTestNotFound);
    const submission = submissionOfStoredRun(profile, row, {
      hfId: row.stored_hf_id,
      hardware: row.stored_hardware as NormalisedHardware,
      engine: {
        name: row.stored_engine_name,
        version: row.stored_engine_version,
        repository: row.stored_engine_repository,
        build: row.stored_engine_build,
        commit: row.stored_engine_commit,
      },
    });
    return { submission, status: row.status as string, createdAt: row.created_at as Date, correctedAt: row.corrected_at as Date | null };
  }

  return {
    ownRun,
    storedSubmission,

    /** The owner's run in any status, or null when the viewer does not own it (or it does not exist). */
    async findOwnRun(userId: string, id: string): Promise<OwnRun | null> {
      const [run] = await ownRuns(userId, (q) => q.where('r.id', id));
      return run ?? null;
    },

    /** The caller's runs in every status, newest first, with the admin's reason where rejected. */
    async mine(userId: string, page: Page): Promise<OwnRunList> {
      const [benchmarks, [{ total }]] = await Promise.all([
        ownRuns(userId, () => {}, page),
        db('speed_test_runs').where({ user_id: userId }).count<{ total: number }[]>('* as total'),
      ]);
      return { benchmarks, total: Number(total), ...page };
    },

    /**
     * Corrects an approved run within the window: the correction merged over the stored
     * submission goes through the whole submission pipeline (schema, metric rule,
     * normalisation, hub check), then the run is rewritten in one transaction with its
     * verdict recomputed, its model's run count moved if the model changed, and the audit
     * entry. The submission window and idempotency keys are not touched.
     */
    /**
     * `engineFlagChanges` (the flat form, PATCH /api/runs/{id}) edits single engine flags of the
     * stored ones instead of replacing engineFlags as a whole.
     */
    async correct(
      userId: string,
      id: string,
      correction: Record<string, unknown>,
      engineFlagChanges?: Record<string, unknown>,
    ): Promise<OwnRun> {
      const stored = await storedSubmission(userId, id);
      assertCorrectable(stored.status, stored.createdAt, clock.now());
      const merged = mergeCorrection(profile, stored.submission, correction);
      if (engineFlagChanges && Object.keys(engineFlagChanges).length > 0) {
        const flags = applyChanges((merged.engineFlags as Record<string, unknown> | undefined) ?? {}, engineFlagChanges);
        if (Object.keys(flags).length > 0) merged.engineFlags = flags;
        else delete merged.engineFlags;
      }
      const submission = parseOrThrow(speedTestSubmissionSchema(profile), merged);
      // A run named anew must be approved; the one named before may have been withdrawn since (the run's page says so).
      if (correction.replicates !== undefined) await replications.assertTarget(submission.replicates, id);
      const { normalised, model } = await validateSubmission(profile, models, submission);
      await writeVisibly(deps, async (trx) => {
        const row = await lockOwnRun(trx, userId, id);
        const now = clock.now();
        assertCorrectable(row.status, row.created_at, now);
        // Another correction landed while this one was checked: it was merged over an older run.
        if (row.corrected_at?.getTime() !== stored.correctedAt?.getTime()) throw new Conflict(messages.runChangedMeanwhile);
        const inTransaction = withTransaction(trx);
        const modelRow = await inTransaction.models.catalogueIfNew(model);
        await inTransaction.runWriter.rewrite(profile, {
          id,
          normalised,
          model: modelRow,
          userId,
          previousModelId: row.model_id,
          correctedAt: now,
        });
        await inTransaction.audit.record(
          { id: userId, username: row.username },
          {
            action: 'speed_test.corrected',
            targetKind: 'speed_test_run',
            targetId: id,
            targetLabel: speedTestLabel(row),
            // The hardware as stored (defaults filled in) on both sides: a default is not a change.
            reason: changesOf(stored.submission, { ...submission, hardware: submittedHardware(normalised.hardware) }),
          },
        );
      });
      return ownRun(userId, id);
    },

    /**
     * Withdraws a run at any time: WITHDRAWN, out of every public list, the leaderboard, the
     * counts and its model's run count, as a rejection is. Withdrawing it again changes
     * nothing and answers the run as it is.
     */
    async withdraw(userId: string, id: string): Promise<OwnRun> {
      await writeVisibly(deps, async (trx) => {
        const row = await lockOwnRun(trx, userId, id);
        if (row.status === 'WITHDRAWN') return;
        await hideSpeedTest(trx, row, { status: 'WITHDRAWN', withdrawn_at: clock.now() });
        await withTransaction(trx).audit.record(
          { id: userId, username: row.username },
          {
            action: 'speed_test.withdrawn',
            targetKind: 'speed_test_run',
            targetId: id,
            targetLabel: speedTestLabel(row),
            reason: `Was ${row.status.toLowerCase()}`,
          },
        );
      });
      return ownRun(userId, id);
    },
  };
}
