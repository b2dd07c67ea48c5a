import type { Logger } from '../logger.ts';
import type { Db } from './knex.ts';

/**
 * Whether the database is reachable, as the app last saw it. During an outage every request
 * fails the same way; this turns those failures into one log line when the outage starts
 * and one when it ends with the count of requests answered 503 in between, instead of one
 * (with a stack) per request.
 */
export interface DatabaseHealth {
  /** A connection failure was seen (a request's query, the session store's pool). */
  failed(error: unknown): void;
  /**
   * A request answered 503: during an outage it is counted (the recovery line says how many)
   * instead of logged; returns whether it was.
   */
  countedAsOutage(): boolean;
  /** Stops watching the pool (the app is closing; the database may outlive it). */
  close(): void;
}

/** "57P01 terminating connection ..." / "ECONNREFUSED connect ECONNREFUSED ...": the cause in one line, no stack. */
export function describeFailure(error: unknown): string {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  const firstLine = String(message ?? error).split('\n')[0]!;
  return typeof code === 'string' && !firstLine.includes(code) ? `${code} ${firstLine}` : firstLine;
}

/**
 * Recovery is the pool opening a new connection: after an outage every connection is a new
 * one, so the first that completes its handshake marks the database reachable again. It
 * covers every way the app queries (builders, transactions, prepared statements) and, unlike
 * a successful acquire, cannot be fooled by a pooled connection whose server has just gone.
 */
export function createDatabaseHealth(db: Db, logger: Logger): DatabaseHealth {
  let unavailableSince: number | undefined;
  let refusedRequests = 0;
  // Knex's own pool (tarn) emits the events; a pool handed in from outside might not.
  const pool = db.client.pool && 'on' in db.client.pool ? db.client.pool : undefined;
  const onConnectionOpened = () => {
    if (unavailableSince === undefined) return;
    logger.info({ unavailableForMs: Date.now() - unavailableSince, refusedRequests }, 'database available again');
    unavailableSince = undefined;
    refusedRequests = 0;
  };
  pool?.on('createSuccess', onConnectionOpened);
  return {
    failed(error) {
      if (unavailableSince !== undefined) return;
      unavailableSince = Date.now();
      logger.error(`database unavailable: ${describeFailure(error)}`);
    },
    countedAsOutage() {
      if (unavailableSince === undefined) return false;
      refusedRequests += 1;
      return true;
    },
    close() {
      pool?.removeListener('createSuccess', onConnectionOpened);
    },
  };
}
