import type { RevisionProfile } from '../../revisions.ts';

/**
 * Like-for-like by default (issue 16): where the revision has the batchSize filter, the
 * page shows single-stream runs (batchSize=1) unless one is chosen, and `batchSize=all`
 * shows every run, throughput runs included. The API keeps its own default (every run).
 * Report cards of a leaderboard address read it the same way.
 */
export function leaderboardPageView(profile: RevisionProfile, params: Record<string, unknown>) {
  if (!profile.speedTests.leaderboard.extendedFilters) return { view: null, apiParams: params };
  const { batchSize, ...rest } = params;
  if (batchSize === 'all') return { view: 'all' as const, apiParams: rest };
  if (batchSize === undefined) return { view: 'single' as const, apiParams: { ...rest, batchSize: '1' } };
  return { view: String(batchSize) === '1' ? ('single' as const) : ('chosen' as const), apiParams: params };
}
