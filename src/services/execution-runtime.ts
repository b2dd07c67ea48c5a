import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { OutboundClient } from '../clients/outbound.ts';
import type { Config } from '../config.ts';
import { EXECUTE_LIMITS } from '../schemas/execute.schema.ts';

/** How often the worker loops look for work, beat and give up on a silent peer. */
export interface ExecutionTiming {
  /** Between looks at the queue when nothing woke the loop. */
  pollMs: number;
  /** Between heartbeats of a running job (each also reads a cancel request from another instance). */
  heartbeatMs: number;
  /** A running job whose heartbeat is older is taken over by another worker. */
  staleMs: number;
  /** The whole execution, from its first claim. */
  maxDurationMs: number;
  /** A dry-run, from its first call to the target to its answer (both calls share it). */
  dryRunDeadlineMs: number;
}

export const DEFAULT_EXECUTION_TIMING: ExecutionTiming = {
  pollMs: 2000,
  heartbeatMs: 5000,
  staleMs: 60_000,
  maxDurationMs: EXECUTE_LIMITS.maxDurationMs,
  dryRunDeadlineMs: EXECUTE_LIMITS.dryRunDeadlineMs,
};

/**
 * What this app instance's executions share between the request side and its workers: the
 * instance id, the targets' API keys (in memory only, never stored: a job with a key runs
 * only on the instance that holds it), and the signals "a job was queued" and "cancel this
 * job now".
 */
export class ExecutionRuntime extends EventEmitter<{ wake: []; cancel: [id: string] }> {
  readonly instanceId = randomUUID();
  readonly keys = new Map<string, string>();
  constructor(readonly workers: number) {
    super();
  }
  wake(): void {
    this.emit('wake');
  }
  cancel(id: string): void {
    this.emit('cancel', id);
  }
}

/** What the executions service and its workers are built from, besides the usual deps. */
export interface ExecutionDeps {
  outbound: OutboundClient;
  runtime: ExecutionRuntime;
  judge: Config['execute']['judge'];
  timing: ExecutionTiming;
}
