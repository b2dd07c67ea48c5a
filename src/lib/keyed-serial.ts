/**
 * Runs tasks one at a time per key within this process (different keys run in parallel).
 * Used in front of a database lock: requests of one user queue here, in memory, rather
 * than each holding a pooled connection while it waits for the lock.
 */
export function createKeyedSerial() {
  const tails = new Map<string, Promise<unknown>>();
  return async function serially<T>(key: string, task: () => Promise<T>): Promise<T> {
    const before = tails.get(key) ?? Promise.resolve();
    const run = before.then(task, task);
    // The next task of this key waits for this one, whatever its outcome.
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    tails.set(key, tail);
    try {
      return await run;
    } finally {
      if (tails.get(key) === tail) tails.delete(key);
    }
  };
}
