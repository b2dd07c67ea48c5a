import { NotFound } from '../lib/errors.ts';
import { messages } from '../messages.ts';
import type { ReactionEmoji } from '../constants.ts';
import type { ServiceDeps } from './deps.ts';
import { SPEED_TEST_REACTION_KIND } from './speed-test-reads.ts';

/**
 * Reactions: one per user per run. A run's counts per emoji are kept on the run row
 * (`reaction_counts`, only emojis with a count), so lists and the leaderboard read them
 * with the run's stored document instead of aggregating.
 */
export interface ReactionState {
  reactionCounts: Partial<Record<ReactionEmoji, number>>;
  myEmoji: ReactionEmoji | null;
}

export function createReactionsService({ db }: Pick<ServiceDeps, 'db'>) {
  return {
    /**
     * Sets (or with null, removes) the user's reaction to an approved speed-test run.
     *
     * The run row is locked first, so reactions to one run are written one transaction at a
     * time; the recount is its own statement, and under read committed it takes its snapshot
     * after any earlier reacting transaction committed, so every reaction is counted.
     * A rejected run is not found, as in every public read.
     */
    async reactToSpeedTest(runId: string, userId: string, emoji: ReactionEmoji | null): Promise<ReactionState> {
      return db.transaction(async (trx) => {
        const run = await trx('speed_test_runs').where({ id: runId, status: 'APPROVED' }).forUpdate().first('id');
        if (!run) throw new NotFound(messages.speedTestNotFound);

        const mine = { run_kind: SPEED_TEST_REACTION_KIND, run_id: runId, user_id: userId };
        if (emoji === null) {
          await trx('run_reactions').where(mine).delete();
        } else {
          await trx('run_reactions')
            .insert({ ...mine, emoji })
            .onConflict(['run_kind', 'run_id', 'user_id'])
            .merge({ emoji, updated_at: trx.fn.now() });
        }

        // The run row (and so its stored document, by trigger) is only rewritten when a count changed.
        const { rows } = await trx.raw<{ rows: { reaction_counts: ReactionState['reactionCounts'] }[] }>(
          `with counts as (
             select coalesce(jsonb_object_agg(emoji, n), '{}'::jsonb) as reaction_counts
             from (select emoji, count(*)::int as n from run_reactions where run_kind = ? and run_id = ? group by emoji) per_emoji
           ), updated as (
             update speed_test_runs r set reaction_counts = counts.reaction_counts
             from counts where r.id = ? and r.reaction_counts is distinct from counts.reaction_counts
             returning r.id
           )
           select reaction_counts from counts`,
          [SPEED_TEST_REACTION_KIND, runId, runId],
        );
        return { reactionCounts: rows[0]!.reaction_counts, myEmoji: emoji };
      });
    },
  };
}
