import type { ServiceDeps } from './deps.ts';

/**
 * The audit log: every admin action, and the owners' corrections and withdrawals of their
 * own runs. Every admin action writes its entry with an audit service built on
 * the action's own transaction, so an entry exists exactly when the change does.
 */
export const auditActions = [
  'user.verify',
  'user.unverify',
  'user.grant_admin',
  'user.revoke_admin',
  'run.reject',
  'run.restore',
  // A verdict changed because the run's peers did (actor: the re-judging, no user).
  'run.rejudged',
  // Owners' own actions on their runs (actor = the owner).
  'speed_test.corrected',
  'speed_test.withdrawn',
  'suite.approve',
  'suite.reject',
  'suite.official',
  'suite.unofficial',
  'dataset.approve',
  'dataset.reject',
  'quality_run.approve',
  'quality_run.reject',
  'listing.remove',
  'report.unpublish',
  // A hardware name as written, mapped to a catalogue device or unmapped (/admin/hardware).
  'hardware_name.map',
  'hardware_name.unmap',
  // Owners' own account actions (actor = target = the owner).
  'api_keys.revoke_all',
] as const;
export type AuditAction = (typeof auditActions)[number];
export type AuditTargetKind =
  | 'user'
  | 'speed_test_run'
  | 'quality_suite'
  | 'quality_dataset'
  | 'quality_run'
  | 'marketplace_listing'
  | 'model_report'
  | 'hardware_name';

/** Who acted: the signed-in admin (or the owner of the admin's API key), or a run's owner acting on it. */
export interface AdminActor {
  id: string;
  username: string;
}

export interface AuditEntryInput {
  action: AuditAction;
  targetKind: AuditTargetKind;
  targetId: string;
  /** What the target was called at the time (a username, a run's model and submitter). */
  targetLabel: string;
  reason?: string | null;
}

export interface AuditEntry {
  id: string;
  actorId: string | null;
  actorUsername: string;
  action: string;
  targetKind: string;
  targetId: string;
  targetLabel: string;
  reason: string | null;
  createdAt: Date;
}

interface AuditRow {
  id: string;
  actor_id: string | null;
  actor_username: string;
  action: string;
  target_kind: string;
  target_id: string;
  target_label: string;
  reason: string | null;
  created_at: Date;
}

function toAuditEntry(row: AuditRow): AuditEntry {
  return {
    id: row.id,
    actorId: row.actor_id,
    actorUsername: row.actor_username,
    action: row.action,
    targetKind: row.target_kind,
    targetId: row.target_id,
    targetLabel: row.target_label,
    reason: row.reason,
    createdAt: row.created_at,
  };
}

export function createAuditService({ db }: Pick<ServiceDeps, 'db'>) {
  return {
    /** Build this service on the action's own transaction (`db` = its trx). */
    async record(actor: AdminActor, entry: AuditEntryInput): Promise<void> {
      await db('admin_audit_log').insert({
        actor_id: actor.id,
        actor_username: actor.username,
        action: entry.action,
        target_kind: entry.targetKind,
        target_id: entry.targetId,
        target_label: entry.targetLabel.slice(0, 300),
        reason: entry.reason ?? null,
      });
    },

    /** Newest first. */
    async list(page: { limit: number; offset: number }): Promise<{ entries: AuditEntry[]; total: number }> {
      const [rows, [{ total }]] = await Promise.all([
        db<AuditRow>('admin_audit_log')
          .orderBy([
            { column: 'created_at', order: 'desc' },
            { column: 'id', order: 'desc' },
          ])
          .limit(page.limit)
          .offset(page.offset),
        db('admin_audit_log').count<{ total: number }[]>('* as total'),
      ]);
      return { entries: rows.map(toAuditEntry), total };
    },
  };
}

export type AuditService = ReturnType<typeof createAuditService>;
