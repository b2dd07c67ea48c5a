import type { Knex } from 'knex';
import type { Db } from '../db/knex.ts';
import { NotFound } from '../lib/errors.ts';
import type { RevisionProfile } from '../revisions.ts';
import { USERNAME_PATTERN } from '../schemas/account.schema.ts';
import { findRuns, type SpeedTestRun } from './run-reads.ts';
import { findUserByUsername, type User } from './users.service.ts';

export interface UserProfile {
  user: User;
  counts: { runs: number; models: number; hardware: number };
  runs: SpeedTestRun[];
}

/** A public profile: the account, figures of its approved runs and one page of them, newest first; `viewerId` fills `myEmoji`. */
export async function getUserProfile(
  { db, profile }: { db: Db; profile: RevisionProfile },
  username: string,
  page: { limit: number; offset: number },
  viewerId: string | null = null,
): Promise<UserProfile> {
  // A name that breaks the username rule cannot be an account.
  if (!USERNAME_PATTERN.test(username)) throw new NotFound('User not found');
  const user = await findUserByUsername(db, username);
  if (!user) throw new NotFound('User not found');
  const filter = (q: Knex.QueryBuilder) => q.where('r.user_id', user.id).where('r.status', 'APPROVED');
  const [runs, counts] = await Promise.all([
    findRuns(db, profile, filter, page, viewerId),
    db('speed_test_runs as r')
      .modify(filter)
      .first(
        db.raw('count(*)::int as runs'),
        db.raw('count(distinct r.model_id)::int as models'),
        db.raw('count(distinct r.hardware_id)::int as hardware'),
      ),
  ]);
  return { user, counts: { runs: counts.runs, models: counts.models, hardware: counts.hardware }, runs };
}
