import { z } from 'zod';

export const PROFILE_RUNS_PAGE_SIZE = 25;

export const profileQuerySchema = z.object({
  page: z.coerce
    .number({ error: 'Must be a whole number' })
    .int('Must be a whole number')
    .min(1, 'Must be at least 1')
    .max(100_000, 'Must be at most 100000')
    .default(1),
});
