import type { Knex } from 'knex';
import type { Db } from '../../db/knex.ts';
import { Conflict, NotFound } from '../../lib/errors.ts';
import { containsLowercase } from '../../lib/like-patterns.ts';
import { messages } from '../../messages.ts';
import type { AdminSpeedTestsQuery } from '../../schemas/admin.schema.ts';
import type { AdminActor, AuditService } from '../../services/audit.service.ts';
import type { ServiceDeps, Transactional } from '../../services/deps.ts';
import { assertVisibleWrite, writeVisibly } from '../../services/visible-writes.ts';
import type { Page, SpeedTestReads, SpeedTestRun } from '../reads/speed-test-reads.ts';

/**
 * Admin moderation of speed-test runs: search across every status, reject with a reason
 * (the run leaves every public list, the leaderboard and its model's run count) and
 * restore. The per-filter run counts follow by themselves (triggers on the status
 * column); the model's `benchmark_count` is kept here, in the same transaction.
 */
export interface SpeedTestModeration {
  status: string;
  reason: string | null;
  rejectedAt: Date | null;
  /** Username of the admin who rejected it (null when that account is gone). */
  rejectedBy: string | null;
}

export interface ModeratedSpeedTest {
  run: SpeedTestRun;
  moderation: SpeedTestModeration;
}

function applyAdminFilters(q: Knex.QueryBuilder, query: Omit<AdminSpeedTestsQuery, 'page'>): void {
  if (query.status) q.where('r.status', query.status);
  if (query.model) q.whereRaw('r.model_id in (select id from models where lower(hf_id) like ?)', [containsLowercase(query.model)]);
  if (query.user) q.whereRaw('r.user_id in (select id from users where lower(username) like ?)', [containsLowercase(query.user)]);
  // The run's own lower-cased GPU / chip / CPU text, as the leaderboard's hardwareName filter.
  if (query.hardware) q.whereRaw('r.hardware_search like ?', [containsLowercase(query.hardware)]);
}

async function moderationOf(db: Db, ids: string[]): Promise<Map<string, SpeedTestModeration>> {
  if (ids.length === 0) return new Map();
  const rows = await db('speed_test_runs as r')
    .whereIn('r.id', ids)
    .select(
      'r.id',
      'r.status',
      'r.rejected_reason',
      'r.rejected_at',
      db.raw('(select u.username from users u where u.id = r.rejected_by) as rejected_by'),
    );
  return new Map(
    rows.map(
      (row: { id: string; status: string; rejected_reason: string | null; rejected_at: Date | null; rejected_by: string | null }) => [
        row.id,
        { status: row.status, reason: row.rejected_reason, rejectedAt: row.rejected_at, rejectedBy: row.rejected_by },
      ],
    ),
  );
}

async function countAdminSpeedTests(db: Db, reads: SpeedTestReads, query: Omit<AdminSpeedTestsQuery, 'page'>): Promise<number> {
  const filtered = Boolean(query.model || query.user || query.hardware);
  // Without text filters the trigger-kept count has the approved runs; only the few others are counted.
  if (!filtered && query.status === 'APPROVED') return reads.counted('all', '');
  if (!filtered && !query.status) {
    const [approved, [{ others }]] = await Promise.all([
      reads.counted('all', ''),
      db('speed_test_runs').whereNot('status', 'APPROVED').count<{ others: number }[]>('* as others'),
    ]);
    return approved + others;
  }
  const [{ total }] = await db('speed_test_runs as r')
    .modify((q) => applyAdminFilters(q, query))
    .count<{ total: number }[]>('* as total');
  return total;
}

export interface LockedSpeedTest {
  id: string;
  status: string;
  user_id: string;
  model_id: string;
  created_at: Date;
  corrected_at: Date | null;
  hf_id: string;
  username: string;
}

/** The run row, locked for the rest of the transaction, with what its audit label needs. */
export async function lockSpeedTest(trx: Db, id: string): Promise<LockedSpeedTest> {
  const row: LockedSpeedTest | undefined = await trx('speed_test_runs as r')
    .where('r.id', id)
    .forUpdate()
    .first(
      'r.id',
      'r.status',
      'r.user_id',
      'r.model_id',
      'r.created_at',
      'r.corrected_at',
      trx.raw('(select m.hf_id from models m where m.id = r.model_id) as hf_id'),
      trx.raw('(select u.username from users u where u.id = r.user_id) as username'),
    );
  if (!row) throw new NotFound(messages.speedTestNotFound);
  return row;
}

export const speedTestLabel = (row: LockedSpeedTest) => `${row.hf_id} by @${row.username} (${row.id.slice(0, 8)})`;

/**
 * Takes a locked run out of public view (rejected by an admin, withdrawn by its owner) in
 * the caller's transaction, which must be a `writeVisibly` one: its status columns, and its
 * model's run count when it was approved. The count tables, its document and the read index
 * follow by triggers.
 */
export async function hideSpeedTest(
  trx: Db,
  row: LockedSpeedTest,
  columns: { status: 'REJECTED' | 'WITHDRAWN' } & Record<string, unknown>,
): Promise<void> {
  assertVisibleWrite(trx);
  await trx('speed_test_runs').where({ id: row.id }).update(columns);
  if (row.status === 'APPROVED') await trx('models').where({ id: row.model_id }).decrement('benchmark_count', 1);
}

export function createModerationService(
  deps: Pick<ServiceDeps, 'db' | 'profile' | 'readIndex'> & Transactional & { reads: SpeedTestReads; audit: AuditService },
) {
  const { db, reads, audit, withTransaction } = deps;

  /**
   * Moves a run between statuses in one transaction: the run row locked, the model's run
   * count kept and the audit entry written with the change.
   */
  async function moveSpeedTest(
    actor: AdminActor,
    id: string,
    change: (trx: Db, row: LockedSpeedTest) => Promise<{ action: 'run.reject' | 'run.restore'; reason: string | null }>,
  ) {
    // The admin's next page shows the run gone (or back), from this instance's read index too.
    await writeVisibly(deps, async (trx) => {
      const row = await lockSpeedTest(trx, id);
      const { action, reason } = await change(trx, row);
      await withTransaction(trx).audit.record(actor, {
        action,
        targetKind: 'speed_test_run',
        targetId: id,
        targetLabel: speedTestLabel(row),
        reason,
      });
    });
  }

  return {
    /** Runs of every status matching the admin's search, newest first. */
    async searchSpeedTests(query: Omit<AdminSpeedTestsQuery, 'page'>, page: Page): Promise<{ items: ModeratedSpeedTest[]; total: number }> {
      const [runs, total]: [SpeedTestRun[], number] = await Promise.all([
        reads.find((q) => applyAdminFilters(q, query), page),
        countAdminSpeedTests(db, reads, query),
      ]);
      const moderation = await moderationOf(
        db,
        runs.map((run) => run.id),
      );
      return { items: runs.map((run) => ({ run, moderation: moderation.get(run.id)! })).filter((item) => item.moderation), total };
    },

    /** One run whatever its status, with its moderation facts: what an admin sees (`viewerId` fills `myEmoji`). */
    async getSpeedTest(id: string, viewerId: string | null = null): Promise<ModeratedSpeedTest> {
      const [run]: SpeedTestRun[] = await reads.find((q) => q.where('r.id', id), undefined, viewerId);
      const moderation = run && (await moderationOf(db, [id])).get(id);
      if (!run || !moderation) throw new NotFound(messages.speedTestNotFound);
      return { run, moderation };
    },

    async rejectSpeedTest(actor: AdminActor, id: string, reason: string): Promise<void> {
      await moveSpeedTest(actor, id, async (trx, row) => {
        if (row.status !== 'APPROVED') throw new Conflict(messages.cannotReject(row.status));
        await hideSpeedTest(trx, row, { status: 'REJECTED', rejected_reason: reason, rejected_at: trx.fn.now(), rejected_by: actor.id });
        return { action: 'run.reject', reason };
      });
    },

    async restoreSpeedTest(actor: AdminActor, id: string, reason?: string): Promise<void> {
      await moveSpeedTest(actor, id, async (trx, row) => {
        if (row.status !== 'REJECTED') throw new Conflict(messages.cannotRestore(row.status));
        await trx('speed_test_runs')
          .where({ id })
          .update({ status: 'APPROVED', rejected_reason: null, rejected_at: null, rejected_by: null });
        await trx('models').where({ id: row.model_id }).increment('benchmark_count', 1);
        return { action: 'run.restore', reason: reason ?? null };
      });
    },

    /** The figures on /admin and the latest audit entries. */
    async overview() {
      const [users, approvedRuns, otherRuns, [{ auditEntries }], [{ models }], recent] = await Promise.all([
        db('users').first(
          db.raw('count(*)::int as total'),
          db.raw('(count(*) filter (where is_verified))::int as verified'),
          db.raw('(count(*) filter (where is_admin))::int as admins'),
        ),
        reads.counted('all', ''),
        db('speed_test_runs').whereIn('status', ['REJECTED', 'PENDING']).groupBy('status').select('status', db.raw('count(*)::int as n')),
        db('admin_audit_log').count<{ auditEntries: number }[]>('* as auditEntries'),
        db('models').count<{ models: number }[]>('* as models'),
        audit.list({ limit: 10, offset: 0 }),
      ]);
      const byStatus = new Map<string, number>(otherRuns.map((row: { status: string; n: number }) => [row.status, row.n]));
      return {
        users: users.total as number,
        verifiedUsers: users.verified as number,
        admins: users.admins as number,
        approvedRuns: approvedRuns,
        rejectedRuns: byStatus.get('REJECTED') ?? 0,
        pendingRuns: byStatus.get('PENDING') ?? 0,
        models,
        auditEntries,
        recentAudit: recent.entries,
      };
    },
  };
}
