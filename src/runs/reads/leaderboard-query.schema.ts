import { z } from 'zod';
import type { RevisionProfile } from '../../revisions.ts';
import { facetSchemas, leaderboardFacets } from '../facets.ts';
import { perRevision, revisionParams, wholeNumber } from '../../schemas/query-params.ts';

/** What the leaderboard can rank by; all but ttftMs rank higher values first. */
export const leaderboardSorts = ['tokSOut', 'tokSPrefill', 'ttftMs', 'tokPerWatt', 'tokPerDollar'] as const;
export type LeaderboardSort = (typeof leaderboardSorts)[number];
export const exportFormats = ['json', 'csv', 'jsonl'] as const;

/** The leaderboard's query: the revision's filters (the facet registry) and how to page, rank and format them. */
function buildLeaderboardQuerySchema(profile: RevisionProfile) {
  const limits = profile.speedTests.leaderboard.limit;
  const all = {
    ...facetSchemas(leaderboardFacets, profile),
    limit: wholeNumber(limits.min, limits.max).default(limits.default),
    offset: wholeNumber(0, 10_000_000).default(0),
    sort: z.enum(leaderboardSorts, { error: `Must be one of ${leaderboardSorts.join(', ')}` }).default('tokSOut'),
    bestPer: z.enum(['hardware'], { error: 'Must be hardware' }),
    format: z.enum(exportFormats, { error: `Must be one of ${exportFormats.join(', ')}` }).default('json'),
  };
  return revisionParams(all, new Set(Object.keys(all)), ['limit', 'offset', 'sort', 'format']);
}

export const leaderboardQuerySchema = perRevision(buildLeaderboardQuerySchema);

export type LeaderboardQuery = Partial<z.output<ReturnType<typeof buildLeaderboardQuerySchema>>> & {
  limit: number;
  offset: number;
  sort: LeaderboardSort;
  format: (typeof exportFormats)[number];
};
