import { RateLimited } from '../lib/errors.ts';
import type { RateLimitRule } from '../revisions.ts';
import type { Db } from '../db/knex.ts';
import type { ServiceDeps, Transactional } from './deps.ts';
import type { IdempotencyService } from './idempotency.service.ts';

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

/** A submission to store in the user's window of `rule`, safe to retry with an Idempotency-Key. */
export interface WindowedSubmission<Prepared, Answer> {
  userId: string;
  rule: RateLimitRule;
  /** Idempotency-Key scope of this kind of submission. */
  scope: string;
  idempotency?: { key: string; requestHash: string };
  /** Every check before the write (validation, the hub); runs only when there is nothing to replay. */
  prepare(): Promise<Prepared>;
  /** The write, in the transaction that also claims the window; `now` is when it was accepted. */
  store(trx: Db, prepared: Prepared, now: Date): Promise<Answer>;
}

export interface WindowedAnswer<Answer> {
  answer: Answer;
  replayed: boolean;
  /** Submissions left in the window and when it ends (for a replay: the window as it is now). */
  rateLimit: { remaining: number; resetAt: Date };
}

/**
 * Stores a submission (speed test or quality run): prepared first, then in one transaction
 * (a `writeVisibly` one: the submitter's next read includes it) the user's window is claimed
 * and the submission written, so a failed write leaves the window untouched. A retry with the
 * same Idempotency-Key gets the first answer again without writing or using the window.
 */
export async function submitInWindow<Prepared, Answer>(
  {
    clock,
    idempotency,
    windows,
    withTransaction,
  }: Pick<ServiceDeps, 'clock'> & Transactional & { idempotency: IdempotencyService; windows: SubmissionWindowService },
  submission: WindowedSubmission<Prepared, Answer>,
): Promise<WindowedAnswer<Answer>> {
  const { userId, rule } = submission;
  let resetAt: Date | undefined;
  const { answer, replayed } = await idempotency.once(
    submission.idempotency && {
      userId,
      scope: submission.scope,
      key: submission.idempotency.key,
      requestHash: submission.idempotency.requestHash,
    },
    {
      prepare: submission.prepare,
      write: async (trx, prepared) => {
        // Stamped after the checks, as the submission is accepted.
        const now = clock.now();
        resetAt = await withTransaction(trx).windows.claim(userId, rule, now);
        return submission.store(trx, prepared, now);
      },
    },
  );
  if (!replayed) return { answer, replayed, rateLimit: { remaining: 0, resetAt: resetAt! } };
  // A replayed 201 reports the user's window as it stands, like any 201.
  const window = await windows.state(userId, rule);
  return { answer, replayed, rateLimit: { remaining: window.canSubmit ? 1 : 0, resetAt: window.nextAt ?? clock.now() } };
}
