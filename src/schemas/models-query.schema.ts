import { z } from 'zod';
import type { RevisionProfile } from '../revisions.ts';
import { queryFlag, wholeNumber } from './query-params.ts';

const text = (max: number) => z.string({ error: 'Must be given once, as text' }).trim().max(max, `Must be at most ${max} characters`);

export function modelsListQuerySchema(profile: RevisionProfile) {
  const limits = profile.models.listLimit;
  return z.strictObject({
    search: text(128)
      .optional()
      .transform((v) => v || undefined),
    tree: queryFlag().optional(),
    limit: wholeNumber(limits.min, limits.max).default(limits.default),
    offset: wholeNumber(0, 10_000_000).default(0),
  });
}

export function modelSearchQuerySchema(profile: RevisionProfile) {
  const limits = profile.models.searchLimit;
  return z.strictObject({
    q: text(128).pipe(z.string().min(1, 'Required')),
    limit: wholeNumber(limits.min, limits.max).default(limits.default),
  });
}
