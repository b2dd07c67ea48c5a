import { ValidationFailed } from '../../lib/errors.ts';
import { messages } from '../../messages.ts';
import type { ServiceDeps } from '../../services/deps.ts';

/** A run's replications as the verdict reads them: each with its user and figure. */
export interface Replications {
  count: number;
  /** The lowest and highest tokSOut among the run and its replications (null without replications). */
  minTokS: number | null;
  maxTokS: number | null;
  /** maxTokS / minTokS (null without replications). */
  spread: number | null;
  runs: { id: string; userId: string; tokSOut: number | null }[];
}

/**
 * Replications (DECISIONS.md "Verdicts, peers and replication"): the approved runs of a run's
 * recipe key on its device key by other users. The migration `replications` keeps their
 * count, figures and ids on every run (so the leaderboard filters on them and the document
 * shows them); this reads them for code that judges runs, and checks the `replicates` a
 * submission names.
 */
export function createReplicationsService({ db }: Pick<ServiceDeps, 'db'>) {
  return {
    /**
     * The run's replications, each with its user and tokSOut; null for an unknown run. The
     * peer verdict may read them: they are a subset of the run's peers (same weights, device
     * and card count), measured with the same engine build, flags and workload.
     */
    async of(runId: string): Promise<Replications | null> {
      const row:
        | {
            replication_count: number;
            replication_min_tok_s: number | null;
            replication_max_tok_s: number | null;
            replication_runs: string[];
          }
        | undefined = await db('speed_test_runs')
        .where({ id: runId })
        .first('replication_count', 'replication_min_tok_s', 'replication_max_tok_s', 'replication_runs');
      if (!row) return null;
      const ids = row.replication_runs;
      const runs: { id: string; user_id: string; tok_s_out: number | null }[] =
        ids.length > 0 ? await db('speed_test_runs').whereIn('id', ids).select('id', 'user_id', 'tok_s_out') : [];
      const byId = new Map(runs.map((run) => [run.id, run]));
      const [min, max] = [row.replication_min_tok_s, row.replication_max_tok_s];
      return {
        count: row.replication_count,
        minTokS: min,
        maxTokS: max,
        spread: min && max ? Math.round((max / min) * 1000) / 1000 : null,
        runs: ids.flatMap((id) => {
          const run = byId.get(id);
          return run ? [{ id, userId: run.user_id, tokSOut: run.tok_s_out }] : [];
        }),
      };
    },

    /**
     * A submission's `replicates` must name an approved run (and not the run itself): else a
     * 400 naming the field. Whether it counts (recipe, device, user) is the trigger's to say.
     */
    async assertTarget(replicates: string | null | undefined, selfId?: string): Promise<void> {
      if (replicates === undefined || replicates === null) return;
      const problem =
        replicates === selfId
          ? messages.replicatesItself
          : (await db('speed_test_runs').where({ id: replicates, status: 'APPROVED' }).first('id'))
            ? null
            : messages.replicatesNotFound;
      if (problem) throw new ValidationFailed({ fieldErrors: { replicates: [problem] }, formErrors: [] });
    },
  };
}

export type ReplicationsService = ReturnType<typeof createReplicationsService>;
