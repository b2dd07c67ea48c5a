import type { Db } from '../db/knex.ts';
import { NotFound } from '../lib/errors.ts';
import { messages } from '../messages.ts';
import type { ReactionEmoji } from '../constants.ts';
import type { ServiceDeps } from './deps.ts';
import { writeVisibly } from './visible-writes.ts';
import { SPEED_TEST_REACTION_KIND } from '../runs/reads/speed-test-reads.ts';

/**
 * Reactions: one per user per run, for speed-test and quality runs alike (one table keyed by
 * run kind). A run's counts per emoji are kept on its row (`reaction_counts`, only emojis
 * with a count), so lists and the leaderboard read them with the run instead of aggregating.
 */
export interface ReactionState {
  reactionCounts: Partial<Record<ReactionEmoji, number>>;
  myEmoji: ReactionEmoji | null;
}

export const QUALITY_REACTION_KIND = 'quality';
export type RunKind = typeof SPEED_TEST_REACTION_KIND | typeof QUALITY_REACTION_KIND;

/**
 * Where each kind of run lives, what its unknown id answers, and whether the read index
 * holds it (a speed test's counts are in its cached document, so the reactor's next read
 * must wait for the change; quality runs are read from the database).
 */
const RUN_TABLES: Readonly<Record<RunKind, { table: string; notFound: string; inReadIndex: boolean }>> = {
  speed_test: { table: 'speed_test_runs', notFound: messages.speedTestNotFound, inReadIndex: true },
  quality: { table: 'quality_runs', notFound: messages.qualityRunNotFound, inReadIndex: false },
};

export function createReactionsService(deps: Pick<ServiceDeps, 'db' | 'readIndex'>) {
  const { db } = deps;
  /**
   * Sets (or with null, removes) the user's reaction to an approved run of `kind`.
   *
   * The run row is locked first, so reactions to one run are written one transaction at a
   * time; the recount is its own statement, and under read committed it takes its snapshot
   * after any earlier reacting transaction committed, so every reaction is counted.
   * A run that is not approved is not found, as in every public read.
   */
  async function react(kind: RunKind, runId: string, userId: string, emoji: ReactionEmoji | null): Promise<ReactionState> {
    const { table, notFound, inReadIndex } = RUN_TABLES[kind];
    const write = async (trx: Db): Promise<ReactionState> => {
      const run = await trx(table).where({ id: runId, status: 'APPROVED' }).forUpdate().first('id');
      if (!run) throw new NotFound(notFound);

      const mine = { run_kind: kind, run_id: runId, user_id: userId };
      if (emoji === null) {
        await trx('run_reactions').where(mine).delete();
      } else {
        await trx('run_reactions')
          .insert({ ...mine, emoji })
          .onConflict(['run_kind', 'run_id', 'user_id'])
          .merge({ emoji, updated_at: trx.fn.now() });
      }

      // The run row (and so a speed test's stored document, by trigger) is only rewritten when a count changed.
      const { rows } = await trx.raw<{ rows: { reaction_counts: ReactionState['reactionCounts'] }[] }>(
        `with counts as (
           select coalesce(jsonb_object_agg(emoji, n), '{}'::jsonb) as reaction_counts
           from (select emoji, count(*)::int as n from run_reactions where run_kind = ? and run_id = ? group by emoji) per_emoji
         ), updated as (
           update ?? r set reaction_counts = counts.reaction_counts
           from counts where r.id = ? and r.reaction_counts is distinct from counts.reaction_counts
           returning r.id
         )
         select reaction_counts from counts`,
        [kind, runId, table, runId],
      );
      return { reactionCounts: rows[0]!.reaction_counts, myEmoji: emoji };
    };
    return inReadIndex ? writeVisibly(deps, write) : db.transaction(write);
  }

  return {
    reactToSpeedTest: (runId: string, userId: string, emoji: ReactionEmoji | null) => react(SPEED_TEST_REACTION_KIND, runId, userId, emoji),
    reactToQualityRun: (runId: string, userId: string, emoji: ReactionEmoji | null) => react(QUALITY_REACTION_KIND, runId, userId, emoji),

    /** `POST /api/runs/{id}/react` takes either kind of run id: a speed test's first, else a quality run's. */
    async reactToAnyRun(runId: string, userId: string, emoji: ReactionEmoji | null): Promise<ReactionState> {
      const isQuality =
        !(await db('speed_test_runs').where({ id: runId }).first('id')) &&
        Boolean(await db('quality_runs').where({ id: runId }).first('id'));
      return react(isQuality ? QUALITY_REACTION_KIND : SPEED_TEST_REACTION_KIND, runId, userId, emoji);
    },

    /** A run's public counts and the viewer's own reaction (null when anonymous). */
    async state(kind: RunKind, runId: string, viewerId: string | null): Promise<ReactionState> {
      const { table, notFound } = RUN_TABLES[kind];
      const run = await db(table).where({ id: runId, status: 'APPROVED' }).first('reaction_counts');
      if (!run) throw new NotFound(notFound);
      const mine = viewerId
        ? await db('run_reactions').where({ run_kind: kind, run_id: runId, user_id: viewerId }).first('emoji')
        : undefined;
      return { reactionCounts: run.reaction_counts, myEmoji: mine?.emoji ?? null };
    },
  };
}
