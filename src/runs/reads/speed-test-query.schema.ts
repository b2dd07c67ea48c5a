import { z } from 'zod';
import type { RevisionProfile } from '../../revisions.ts';
import { facetSchemas, resultsListFacets } from '../facets.ts';
import { perRevision, revisionParams, wholeNumber } from '../../schemas/query-params.ts';

/** Query parameters of GET {results_path}: the revision's filters (the facet registry) and the page; any other is a 400 naming it. */
function buildListQuerySchema(profile: RevisionProfile) {
  const limits = profile.speedTests.resultsList.limit;
  const all = {
    ...facetSchemas(resultsListFacets, profile),
    limit: wholeNumber(limits.min, limits.max).default(limits.default),
    offset: wholeNumber(0, 10_000_000).default(0),
    // Beyond the spec: every matching run as a download instead of one page.
    format: z.enum(['json', 'csv', 'jsonl'], { error: 'Must be one of json, csv, jsonl' }).default('json'),
  };
  return revisionParams(all, new Set(Object.keys(all)), ['limit', 'offset', 'format']);
}

export const speedTestListQuerySchema = perRevision(buildListQuerySchema);

export type SpeedTestListQuery = Partial<z.output<ReturnType<typeof buildListQuerySchema>>> & { limit: number; offset: number };

/** Query parameters of GET {results_path}/mine: a page, sized like the results list. */
function buildOwnListQuerySchema(profile: RevisionProfile) {
  const limits = profile.speedTests.resultsList.limit;
  return z.strictObject({
    limit: wholeNumber(limits.min, limits.max).default(limits.default),
    offset: wholeNumber(0, 10_000_000).default(0),
  });
}

export const ownSpeedTestsQuerySchema = perRevision(buildOwnListQuerySchema);
