import { z } from 'zod';
import type { RevisionProfile } from '../revisions.ts';
import { documentedAs } from './json-schema.ts';

/**
 * Pieces shared by the query-string schemas. Query values arrive as text (an array when
 * a parameter is repeated, which these reject with "Must be given once").
 */
export const queryText = (max: number) =>
  z.string({ error: 'Must be given once, as text' }).trim().min(1, 'Must not be empty').max(max, `Must be at most ${max} characters`);

export const wholeNumber = (min: number, max: number) =>
  documentedAs(
    z
      .string({ error: 'Must be given once' })
      .regex(/^\d+$/, 'Must be a whole number')
      .transform(Number)
      .pipe(z.number().min(min, `Must be at least ${min}`).max(max, `Must be at most ${max}`)),
    // Sent as text, read as the integer: the documents say what a client means.
    { type: 'integer', minimum: min, maximum: max },
  );

export const queryFlag = () => z.enum(['true', 'false'], { error: 'Must be true or false' }).transform((v) => v === 'true');

/**
 * A strict object of the parameters a revision accepts: `required` keep their schema
 * (they carry defaults), the others become optional; any other parameter is an
 * 'Unknown field' error naming it.
 */
export function revisionParams<All extends Record<string, z.ZodType>, Required extends keyof All>(
  all: All,
  allowed: ReadonlySet<string>,
  required: readonly Required[],
) {
  const keep = new Set<PropertyKey>(required);
  const shape = Object.fromEntries(
    Object.entries(all)
      .filter(([key]) => allowed.has(key))
      .map(([key, schema]) => [key, keep.has(key) ? schema : schema.optional()]),
  ) as { [K in keyof All]: K extends Required ? All[K] : z.ZodOptional<All[K]> };
  return z.strictObject(shape);
}

/** Builds a revision's schema once and hands out the same object after. */
export function perRevision<S>(build: (profile: RevisionProfile) => S): (profile: RevisionProfile) => S {
  const built = new Map<number, S>();
  return (profile) => {
    let schema = built.get(profile.revision);
    if (!schema) built.set(profile.revision, (schema = build(profile)));
    return schema;
  };
}
