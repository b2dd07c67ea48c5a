import { RateLimited } from '../lib/errors.ts';
import type { RateLimitRule } from '../revisions.ts';
import type { ServiceDeps } from './deps.ts';

/** What a submit form shows: may this user submit now, and if not, when. */
export interface WindowState {
  canSubmit: boolean;
  nextAt: Date | null;
}

/**
 * The per-user submission window of a bucket (a rule of the revision profile: speed tests
 * now, quality runs later, each its own bucket so one never uses up the other).
 */
export function createSubmissionWindowService({ db, clock }: Pick<ServiceDeps, 'db' | 'clock'>) {
  return {
    /**
     * Claims the user's window at `now`, atomically: the upsert only moves the window when
     * the last accepted submission is older than the window; otherwise a 429 with the rule's
     * text. Build this service on the submission's transaction, so a submission that fails
     * later leaves the window untouched. Returns when the new window ends.
     */
    async claim(userId: string, rule: RateLimitRule, now: Date): Promise<Date> {
      const windowStart = new Date(now.getTime() - rule.windowMs);
      const claimed = await db.raw<{ rows: unknown[] }>(
        `insert into submission_windows (user_id, bucket, last_submitted_at) values (?, ?, ?)
         on conflict (user_id, bucket) do update set last_submitted_at = excluded.last_submitted_at
         where submission_windows.last_submitted_at <= ?
         returning last_submitted_at`,
        [userId, rule.bucket, now, windowStart],
      );
      if (claimed.rows.length === 0) {
        const { last_submitted_at: last } = await db('submission_windows').where({ user_id: userId, bucket: rule.bucket }).first();
        const retryAfterMs = Math.max(1, last.getTime() + rule.windowMs - now.getTime());
        throw new RateLimited(rule.message, retryAfterMs, { retryAfterMs, lastSubmittedAt: last.toISOString() });
      }
      return new Date(now.getTime() + rule.windowMs);
    },

    async state(userId: string, rule: RateLimitRule): Promise<WindowState> {
      const row = await db('submission_windows').where({ user_id: userId, bucket: rule.bucket }).first('last_submitted_at');
      if (!row) return { canSubmit: true, nextAt: null };
      const nextAt = new Date(row.last_submitted_at.getTime() + rule.windowMs);
      return nextAt <= clock.now() ? { canSubmit: true, nextAt: null } : { canSubmit: false, nextAt };
    },
  };
}

export type SubmissionWindowService = ReturnType<typeof createSubmissionWindowService>;
