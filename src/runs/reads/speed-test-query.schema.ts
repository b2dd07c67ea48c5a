import { z } from 'zod';
import { hwClasses } from '../../constants.ts';
import { type RevisionProfile } from '../../revisions.ts';
import { perRevision, queryFlag, queryText, revisionParams, wholeNumber } from '../../schemas/query-params.ts';

/** Query parameters of GET {results_path}: only the revision's own; any other is a 400 naming it. */
function buildListQuerySchema(profile: RevisionProfile) {
  const limits = profile.speedTests.resultsList.limit;
  const text = queryText(256);
  const flag = queryFlag();
  const instant = z.union([z.iso.datetime({ offset: true }), z.iso.date()], { error: 'Must be an ISO-8601 timestamp, e.g. 2026-01-31T12:00:00Z' });

  const all = {
    hfId: text,
    hwClass: z.enum(hwClasses, { error: `Must be one of ${hwClasses.join(', ')}` }),
    gpuName: text,
    chipVendor: text,
    chipFamily: text,
    chipVariant: text,
    kvCacheDtype: text,
    attentionBackend: text,
    gpuLayersMin: wholeNumber(0, 100_000),
    tensorParallelMin: wholeNumber(0, 100_000),
    specOnly: flag,
    mtpOnly: flag,
    date: z.iso.date({ error: 'Must be a calendar day, YYYY-MM-DD' }),
    dateFrom: instant,
    dateTo: instant,
    userId: z.uuid({ error: 'Must be a user id (uuid)' }),
    username: text,
    verified: flag,
    limit: wholeNumber(limits.min, limits.max).default(limits.default),
    offset: wholeNumber(0, 10_000_000).default(0),
    // Beyond the spec: every matching run as a download instead of one page.
    format: z.enum(['json', 'csv', 'jsonl'], { error: 'Must be one of json, csv, jsonl' }).default('json'),
  };
  return revisionParams(all, new Set<string>([...profile.speedTests.resultsList.params, 'format']), ['limit', 'offset', 'format']);
}

export const speedTestListQuerySchema = perRevision(buildListQuerySchema);

export type SpeedTestListQuery = Partial<z.output<ReturnType<typeof buildListQuerySchema>>> & { limit: number; offset: number };

/** Query parameters of GET {results_path}/mine: a page, sized like the results list. */
function buildOwnListQuerySchema(profile: RevisionProfile) {
  const limits = profile.speedTests.resultsList.limit;
  return z.strictObject({ limit: wholeNumber(limits.min, limits.max).default(limits.default), offset: wholeNumber(0, 10_000_000).default(0) });
}

export const ownSpeedTestsQuerySchema = perRevision(buildOwnListQuerySchema);
