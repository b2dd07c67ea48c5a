import type { ServiceDeps } from './deps.ts';

/** How long rows that only serve short-lived checks are kept. */
export const RETENTION = {
  /** Longer than any rate-limit window (the longest is one hour). */
  rateLimitCountersMs: 24 * 60 * 60_000,
  /** Agents retry within minutes; a day covers any sane retry policy. */
  idempotencyKeysMs: 24 * 60 * 60_000,
};

export function createHousekeepingService({ db }: Pick<ServiceDeps, 'db'>) {
  return {
    /** Deletes expired rate-limit counters and idempotency keys; returns how many went. */
    async pruneExpired(now: Date): Promise<{ rateLimitCounters: number; idempotencyKeys: number }> {
      const [rateLimitCounters, idempotencyKeys] = await Promise.all([
        db('rate_limit_counters')
          .where('window_start', '<', new Date(now.getTime() - RETENTION.rateLimitCountersMs))
          .delete(),
        db('idempotency_keys')
          .where('created_at', '<', new Date(now.getTime() - RETENTION.idempotencyKeysMs))
          .delete(),
      ]);
      return { rateLimitCounters, idempotencyKeys };
    },
  };
}
