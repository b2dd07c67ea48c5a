import { z } from 'zod';
import { buckets, hwClasses } from '../../constants.ts';
import { type RevisionProfile } from '../../revisions.ts';
import { documentedAs } from '../../schemas/json-schema.ts';
import { perRevision, queryFlag, queryText, revisionParams, wholeNumber } from '../../schemas/query-params.ts';

/** What the leaderboard can rank by; all but ttftMs rank higher values first. */
export const leaderboardSorts = ['tokSOut', 'tokSPrefill', 'ttftMs', 'tokPerWatt', 'tokPerDollar'] as const;
export type LeaderboardSort = (typeof leaderboardSorts)[number];
export const exportFormats = ['json', 'csv', 'jsonl'] as const;

/** Parameters beyond the spec, accepted in every revision. */
const EXTRA_PARAMS = ['sort', 'bestPer', 'format', 'plausible'] as const;

function buildLeaderboardQuerySchema(profile: RevisionProfile) {
  const limits = profile.speedTests.leaderboard.limit;
  const text = queryText;
  const oneOf = <T extends number>(values: readonly T[]) =>
    documentedAs(
      z
        .string({ error: 'Must be given once' })
        .refine((v) => values.map(String).includes(v), `Must be one of ${values.join(', ')}`)
        .transform((v) => Number(v) as T),
      { type: 'integer', enum: [...values] },
    );
  const flag = queryFlag();

  const all = {
    hfId: text(256),
    hwClass: z.enum(hwClasses, { error: `Must be one of ${hwClasses.join(', ')}` }),
    memTier: oneOf(buckets.memTier),
    engineName: z.enum(profile.speedTests.engines as [string, ...string[]], { error: `Must be one of: ${profile.speedTests.engines.join(', ')}` }),
    quantization: text(64),
    verified: flag,
    since: z.enum(Object.keys(buckets.since) as ['7d', '30d'], { error: 'Must be 7d or 30d' }),
    limit: wholeNumber(limits.min, limits.max).default(limits.default),
    offset: wholeNumber(0, 10_000_000).default(0),
    hardwareName: text(128),
    paramSize: oneOf(buckets.paramSize.map((b) => b.bucket)),
    os: z.enum(buckets.os, { error: `Must be one of ${buckets.os.join(', ')}` }),
    backend: text(64),
    modelFamily: text(128),
    isMoE: flag,
    // N is exact below the open-ended bucket, which means N or more.
    batchSize: wholeNumber(1, buckets.batchSizeOpenEnded),
    contextLen: oneOf(buckets.contextLen),
    sort: z.enum(leaderboardSorts, { error: `Must be one of ${leaderboardSorts.join(', ')}` }).default('tokSOut'),
    bestPer: z.enum(['hardware'], { error: 'Must be hardware' }),
    format: z.enum(exportFormats, { error: `Must be one of ${exportFormats.join(', ')}` }).default('json'),
    plausible: flag,
  };
  return revisionParams(all, new Set<string>([...profile.speedTests.leaderboard.params, ...EXTRA_PARAMS]), ['limit', 'offset', 'sort', 'format']);
}

export const leaderboardQuerySchema = perRevision(buildLeaderboardQuerySchema);

export type LeaderboardQuery = Partial<z.output<ReturnType<typeof buildLeaderboardQuerySchema>>> & {
  limit: number;
  offset: number;
  sort: LeaderboardSort;
  format: (typeof exportFormats)[number];
};
