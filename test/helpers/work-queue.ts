import type { WorkQueue } from '../../src/lib/work-queue.ts';

/**
 * Takes every place of `queue` (running and waiting) with a task that waits, so the next
 * `run` finds it full; returns what lets those tasks finish.
 */
export function fillWorkQueue(queue: WorkQueue): () => Promise<void> {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const held = Array.from({ length: queue.capacity }, () => queue.run(() => gate));
  return async () => {
    release();
    await Promise.all(held);
  };
}

/** Runs `action` while `queue` is full. */
export async function whileFull<T>(queue: WorkQueue, action: () => Promise<T>): Promise<T> {
  const release = fillWorkQueue(queue);
  try {
    return await action();
  } finally {
    await release();
  }
}
