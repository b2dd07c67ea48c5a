import { NotFound } from '../lib/errors.ts';
import { messages } from '../messages.ts';
import { USERNAME_PATTERN } from '../schemas/account.schema.ts';
import type { ServiceDeps } from './deps.ts';
import type { Page, SpeedTestFilter, SpeedTestReads, SpeedTestRun } from '../runs/reads/speed-test-reads.ts';
import type { User, UsersService } from './users.service.ts';

export interface UserProfile {
  user: User;
  counts: { runs: number; models: number; hardware: number };
  runs: SpeedTestRun[];
}

/** Public profiles: an account and what it has measured. */
export function createProfilesService({ db, reads, users }: Pick<ServiceDeps, 'db'> & { reads: SpeedTestReads; users: UsersService }) {
  return {
    /** The account, figures of its approved runs and one page of them, newest first; `viewerId` fills `myEmoji`. */
    async get(username: string, page: Page, viewerId: string | null = null): Promise<UserProfile> {
      // A name that breaks the username rule cannot be an account.
      if (!USERNAME_PATTERN.test(username)) throw new NotFound(messages.userNotFound);
      const user = await users.findByUsername(username);
      if (!user) throw new NotFound(messages.userNotFound);
      const filter: SpeedTestFilter = (q) => q.where('r.user_id', user.id).where('r.status', 'APPROVED');
      const [runs, counts] = await Promise.all([
        reads.find(filter, page, viewerId),
        db('speed_test_runs as r')
          .modify(filter)
          .first(
            db.raw('count(*)::int as runs'),
            db.raw('count(distinct r.model_id)::int as models'),
            db.raw('count(distinct r.hardware_id)::int as hardware'),
          ),
      ]);
      return { user, counts: { runs: counts.runs, models: counts.models, hardware: counts.hardware }, runs };
    },
  };
}
