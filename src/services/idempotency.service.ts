import type { Db } from '../db/knex.ts';
import { HttpError } from '../lib/errors.ts';
import { messages } from '../messages.ts';
import type { ServiceDeps } from './deps.ts';
import { writeVisibly } from './visible-writes.ts';

/** A write the client marked with an `Idempotency-Key`: who, for which kind of write, and what body. */
export interface IdempotentRequest {
  userId: string;
  /** Which write the key belongs to (`speed-test`, later `quality`): keys of different writes never meet. */
  scope: string;
  key: string;
  /** Hash of the request body as sent: the same key with another body is refused. */
  requestHash: string;
}

export interface WriteSteps<Prepared, Answer> {
  /** Checks and lookups before anything is written (validation, the hub); runs only when there is nothing to replay. */
  prepare(): Promise<Prepared>;
  /** The write itself, in its transaction; returns the answer that a retry gets again. */
  write(trx: Db, prepared: Prepared): Promise<Answer>;
}

/** Thrown inside the transaction when a concurrent request with the same key reserved it first. */
class KeyTaken extends Error {}

/**
 * Safe retries. `once` runs a write at most once per (user, scope, key), and answers a
 * retry with the stored answer of the first attempt. The writes are submissions, which
 * reads show (the run, and a model or hardware profile it may catalogue), so each is a
 * `writeVisibly` transaction.
 */
export function createIdempotencyService(deps: Pick<ServiceDeps, 'db' | 'readIndex'>) {
  const { db } = deps;
  async function storedAnswer<Answer>(request: IdempotentRequest): Promise<Answer | undefined> {
    const stored = await db('idempotency_keys').where({ user_id: request.userId, scope: request.scope, key: request.key }).first();
    if (!stored) return undefined;
    if (stored.request_hash !== request.requestHash) throw new HttpError(422, messages.idempotencyOtherBody);
    // A reserved key without an answer belongs to a write that has not committed.
    return (stored.response ?? undefined) as Answer | undefined;
  }

  return {
    /**
     * Without a key, prepares and writes in one transaction. With one: a stored answer for
     * the same body is replayed (another body is a 422); otherwise the key is reserved inside
     * the write's transaction and the answer stored with it, so a failed write leaves no key
     * behind. A concurrent request with the key that committed first is replayed; one still
     * running is a 409.
     */
    async once<Prepared, Answer>(
      request: IdempotentRequest | undefined,
      steps: WriteSteps<Prepared, Answer>,
    ): Promise<{ answer: Answer; replayed: boolean }> {
      if (!request) {
        const prepared = await steps.prepare();
        return { answer: await writeVisibly(deps, (trx) => steps.write(trx, prepared)), replayed: false };
      }
      const earlier = await storedAnswer<Answer>(request);
      if (earlier !== undefined) return { answer: earlier, replayed: true };
      const prepared = await steps.prepare();
      const mine = { user_id: request.userId, scope: request.scope, key: request.key };
      try {
        const answer = await writeVisibly(deps, async (trx) => {
          const reserved = await trx('idempotency_keys')
            .insert({ ...mine, request_hash: request.requestHash })
            .onConflict(['user_id', 'scope', 'key'])
            .ignore()
            .returning('key');
          if (reserved.length === 0) throw new KeyTaken();
          const written = await steps.write(trx, prepared);
          await trx('idempotency_keys')
            .where(mine)
            .update({ status_code: 201, response: JSON.stringify(written) });
          return written;
        });
        return { answer, replayed: false };
      } catch (error) {
        if (!(error instanceof KeyTaken)) throw error;
        const winner = await storedAnswer<Answer>(request);
        if (winner === undefined) throw new HttpError(409, messages.idempotencyInFlight);
        return { answer: winner, replayed: true };
      }
    },
  };
}

export type IdempotencyService = ReturnType<typeof createIdempotencyService>;
