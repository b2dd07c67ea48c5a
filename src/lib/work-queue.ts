/**
 * A bounded queue of async work: at most `concurrency` tasks run at once and at most
 * `maxWaiting` wait for a turn; past that `run` fails at once with `busy()` (a 503 for the
 * path that uses it), so a burst of one kind of work is refused by that path instead of
 * queueing without end and taking memory, threads or connections from everything else.
 */
export interface WorkQueue {
  run<T>(task: () => Promise<T>): Promise<T>;
  /** Tasks running now, and waiting. */
  readonly running: number;
  /** How many tasks it takes, running and waiting, before `run` says busy. */
  readonly capacity: number;
  readonly waiting: number;
}

export function createWorkQueue({
  concurrency,
  maxWaiting,
  busy,
}: {
  concurrency: number;
  maxWaiting: number;
  busy: () => Error;
}): WorkQueue {
  let running = 0;
  const turns: (() => void)[] = [];

  async function acquire(): Promise<void> {
    if (running < concurrency) {
      running += 1;
      return;
    }
    if (turns.length >= maxWaiting) throw busy();
    // The finishing task hands its place over: `running` stays as it is.
    await new Promise<void>((resolve) => turns.push(resolve));
  }

  function release(): void {
    const next = turns.shift();
    if (next) next();
    else running -= 1;
  }

  return {
    async run(task) {
      await acquire();
      try {
        return await task();
      } finally {
        release();
      }
    },
    get running() {
      return running;
    },
    capacity: concurrency + maxWaiting,
    get waiting() {
      return turns.length;
    },
  };
}
