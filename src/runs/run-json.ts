/**
 * The run's serialisers, one home for its answers: the stored revision-3 document cut to a
 * revision's shape, spliced unparsed where the revision answers it as stored (with the
 * reader's reaction replacing the trailing null), and the leaderboard and list pages
 * around them. Services and the HTTP layer both shape runs through these.
 */
import { type JsonChunk, JsonPieces, chunkText, jsonArray, jsonObject, sliceChunk } from '../lib/json-text.ts';
import type { RevisionProfile } from '../revisions.ts';
import type { LeaderboardPage } from './reads/leaderboard.service.ts';
import type { SpeedTestList } from './reads/results-list.ts';
import type { SpeedTestDocumentRow, SpeedTestRun } from './reads/speed-test-reads.ts';

// Documents end with `"myEmoji":null}` (the migration keeps it last), so the reader's own
// reaction replaces that null without parsing the document.
export const MY_EMOJI_NULL_TAIL = 'null}';

/** Whether the revision answers the stored document as it is. */
export const answersDocumentAsStored = (profile: RevisionProfile) =>
  profile.speedTests.omittedRunFields.length === 0 && profile.speedTests.revision3Fields;

/** The stored (revision 3) run cut down to what the revision has. */
export function speedTestRunForRevision<Run extends SpeedTestRun>(profile: RevisionProfile, run: Run): Run {
  const fields: Record<string, unknown> = run;
  const omitted = profile.speedTests.omittedRunFields;
  for (const field of omitted) delete fields[field];
  if (Array.isArray(fields.defaultedFields)) fields.defaultedFields = fields.defaultedFields.filter((field) => !omitted.includes(field));
  if (!profile.speedTests.revision3Fields) {
    const { id, name, version } = fields.engine as Record<string, unknown>;
    fields.engine = { id, name, version };
  }
  return run;
}

/** The stored document in pieces, with the reader's reaction in place of its trailing null. */
function documentPieces({ document, my_emoji }: SpeedTestDocumentRow): [JsonChunk] | [JsonChunk, string] {
  return my_emoji === null ? [document] : [sliceChunk(document, 0, -MY_EMOJI_NULL_TAIL.length), `${JSON.stringify(my_emoji)}}`];
}

const withMyEmoji = (row: SpeedTestDocumentRow): string => documentPieces(row).map(chunkText).join('');

/** The run as a JSON text in the revision's shape (for revision 3 without parsing it). */
export function speedTestJson(profile: RevisionProfile, row: SpeedTestDocumentRow): string {
  if (answersDocumentAsStored(profile)) return withMyEmoji(row);
  return JSON.stringify(toSpeedTestRun(profile, row));
}

/** The run as an object in the revision's shape, for pages and exports. */
export function toSpeedTestRun(profile: RevisionProfile, row: SpeedTestDocumentRow): SpeedTestRun {
  return speedTestRunForRevision(profile, JSON.parse(withMyEmoji(row)) as SpeedTestRun);
}

/**
 * Stored documents as one JSON array, in pieces: each as `documentPieces` gives it and, with
 * `rankFrom`, with `"rank":N` spliced in front of each, counting up (the SQL path does the same
 * in Postgres for the leaderboard).
 */
export function documentArray(rows: readonly SpeedTestDocumentRow[], rankFrom?: number): JsonPieces {
  const out = new JsonPieces().push('[');
  rows.forEach((row, i) => {
    const [first, ...rest] = documentPieces(row);
    if (i > 0) out.push(',');
    if (rankFrom === undefined) out.push(first);
    else out.push(`{"rank":${rankFrom + i},`, sliceChunk(first, 1));
    out.push(...rest);
  });
  return out.push(']');
}

/** The page as the API answers it, in bytes: the ranked rows spliced in as they are. */
export function leaderboardJson(profile: RevisionProfile, page: LeaderboardPage): Buffer {
  const rows = answersDocumentAsStored(profile) ? page.rows : jsonArray(leaderboardRuns(profile, page).map((run) => JSON.stringify(run)));
  return jsonObject({ rows, total: page.total, limit: page.limit, offset: page.offset });
}

/** The page's runs as objects in the revision's shape, for the pages. */
export function leaderboardRuns(profile: RevisionProfile, page: LeaderboardPage): (SpeedTestRun & { rank: number })[] {
  return (JSON.parse(page.rowsJson) as (SpeedTestRun & { rank: number })[]).map((run) => speedTestRunForRevision(profile, run));
}

/** The list as the API answers it, in bytes, assembled from the stored documents. */
export function speedTestListJson(profile: RevisionProfile, list: SpeedTestList): Buffer {
  const benchmarks = answersDocumentAsStored(profile)
    ? documentArray(list.benchmarks)
    : jsonArray(list.benchmarks.map((row) => speedTestJson(profile, row)));
  return jsonObject({ ...list, benchmarks });
}

/** The list's runs as objects, for the pages. */
export function speedTestListRuns(profile: RevisionProfile, list: SpeedTestList): SpeedTestRun[] {
  return list.benchmarks.map((row) => toSpeedTestRun(profile, row));
}
