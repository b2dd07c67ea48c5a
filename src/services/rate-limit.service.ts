import type { ServiceDeps } from './deps.ts';

/** A fixed-window limit: at most `limit` hits per `windowMs`. */
export interface FixedWindow {
  limit: number;
  windowMs: number;
}

export interface WindowHit {
  allowed: boolean;
  count: number;
  /** When the current window ends. */
  resetAt: Date;
  retryAfterMs: number;
}

/** Fixed-window counters per (bucket, key) in Postgres, shared by every app instance. */
export function createRateLimitService({ db }: Pick<ServiceDeps, 'db'>) {
  return {
    /**
     * Counts one hit in a fixed window for (bucket, key) and says whether it is within
     * `limit`. One atomic upsert, so concurrent requests and app instances agree.
     */
    async hit({ bucket, key, limit, windowMs }: FixedWindow & { bucket: string; key: string }): Promise<WindowHit> {
      const expired = `rate_limit_counters.window_start <= now() - (?::double precision * interval '1 millisecond')`;
      const { rows } = await db.raw<{ rows: { count: number; window_start: Date; now: Date }[] }>(
        `insert into rate_limit_counters (bucket, key, window_start, count) values (?, ?, now(), 1)
         on conflict (bucket, key) do update set
           count = case when ${expired} then 1 else rate_limit_counters.count + 1 end,
           window_start = case when ${expired} then now() else rate_limit_counters.window_start end
         returning count, window_start, now() as now`,
        [bucket, key, windowMs, windowMs],
      );
      const row = rows[0]!;
      const resetAt = new Date(row.window_start.getTime() + windowMs);
      return {
        allowed: row.count <= limit,
        count: row.count,
        resetAt,
        retryAfterMs: Math.max(0, resetAt.getTime() - row.now.getTime()),
      };
    },

    /** Takes back one hit of the current window, for an attempt that turned out not to count. */
    async release(bucket: string, key: string): Promise<void> {
      await db('rate_limit_counters').where({ bucket, key }).where('count', '>', 0).decrement('count', 1);
    },

    async clear(bucket: string, key: string): Promise<void> {
      await db('rate_limit_counters').where({ bucket, key }).delete();
    },
  };
}

export type RateLimitService = ReturnType<typeof createRateLimitService>;
