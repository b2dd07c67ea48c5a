import { z } from 'zod';
import { hwClasses, type RevisionProfile } from '../revisions.ts';

/** Query parameters of GET {results_path}: only the revision's own; any other is a 400 naming it. */
function buildListQuerySchema(profile: RevisionProfile) {
  const limits = profile.bounds.pageLimit.results;
  const text = z.string({ error: 'Must be given once, as text' }).trim().min(1, 'Must not be empty').max(256, 'Must be at most 256 characters');
  const wholeNumber = (min: number, max: number) =>
    z
      .string({ error: 'Must be given once' })
      .regex(/^\d+$/, 'Must be a whole number')
      .transform(Number)
      .pipe(z.number().min(min, `Must be at least ${min}`).max(max, `Must be at most ${max}`));
  const flag = z.enum(['true', 'false'], { error: 'Must be true or false' }).transform((v) => v === 'true');
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
  const allowed = new Set<string>([...profile.resultsListParams, 'format']);
  const shape = Object.fromEntries(
    Object.entries(all)
      .filter(([key]) => allowed.has(key))
      .map(([key, schema]) => [key, key === 'limit' || key === 'offset' || key === 'format' ? schema : schema.optional()]),
  ) as { [K in keyof typeof all]: K extends 'limit' | 'offset' | 'format' ? (typeof all)[K] : z.ZodOptional<(typeof all)[K]> };
  return z.strictObject(shape);
}

const cache = new Map<number, ReturnType<typeof buildListQuerySchema>>();

export function speedTestListQuerySchema(profile: RevisionProfile) {
  let schema = cache.get(profile.revision);
  if (!schema) cache.set(profile.revision, (schema = buildListQuerySchema(profile)));
  return schema;
}

export type SpeedTestListQuery = Partial<z.output<ReturnType<typeof buildListQuerySchema>>> & { limit: number; offset: number };
