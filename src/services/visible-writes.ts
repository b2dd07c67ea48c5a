import type { Db } from '../db/knex.ts';
import type { ServiceDeps } from './deps.ts';

/**
 * Read-your-writes by construction (issue 31). The leaderboard and the results list answer
 * from this instance's read index, which learns of a committed change by LISTEN/NOTIFY a few
 * milliseconds later. So every write that those reads show (runs and their documents,
 * reaction counts, and the models, hardware profiles and users whose names the index
 * resolves) goes through `writeVisibly`: one transaction, then, after its commit and never
 * inside it, one catch-up of the index. The writer's answer and its next read include the change.
 */

/** Transactions opened by `writeVisibly` and not yet finished: the writers of runs and models refuse any other. */
const visibleTransactions = new WeakSet<Db>();

/**
 * Runs `write` in one transaction and, once it has committed, waits until this instance's
 * read index has applied it. A service built on such a transaction (`{ ...deps, db: trx }`)
 * joins it, and its opener catches up. Without an index (CLI, seeds) it is a transaction.
 */
export async function writeVisibly<T>(
  { db, readIndex }: Pick<ServiceDeps, 'db' | 'readIndex'>,
  write: (trx: Db) => Promise<T>,
): Promise<T> {
  if (visibleTransactions.has(db)) return write(db);
  // Inside some other transaction a catch-up could only come before that one commits.
  if (db.isTransaction) throw new Error('writeVisibly inside a transaction it did not open: open the outer one with writeVisibly');
  const answer = await db.transaction(async (trx) => {
    visibleTransactions.add(trx);
    try {
      return await write(trx);
    } finally {
      visibleTransactions.delete(trx);
    }
  });
  await readIndex?.caughtUp();
  return answer;
}

/**
 * Throws unless `db` is a transaction opened by `writeVisibly`. The shared writers of what
 * reads show call it, so a new write path that forgets the catch-up fails at once in any test.
 */
export function assertVisibleWrite(db: Db): void {
  if (!visibleTransactions.has(db))
    throw new Error('a change the read index shows must be written inside writeVisibly (src/services/visible-writes.ts)');
}
