import { z } from 'zod';
import { hwClasses } from '../constants.ts';
import { QUALITY_LIMITS } from './quality.schema.ts';
import { queryText, wholeNumber } from './query-params.ts';

/** Query strings of the public quality pages (the catalogue takes the API's `suiteListQuerySchema`). */

/** Runs per page of a suite's leaderboard. */
export const SUITE_RUNS_PAGE_SIZE = 50;

/** `/evals/{slug}`: the leaderboard's filters and page. */
export const suitePageQuerySchema = z.strictObject({
  modelFamily: queryText(128).optional(),
  quantization: queryText(64).optional(),
  hwClass: z.enum(hwClasses, { error: `Must be one of ${hwClasses.join(', ')}` }).optional(),
  offset: wholeNumber(0, 1_000_000).default(0),
});

/** Traces per page of a run's page. */
export const ARTIFACTS_PER_PAGE = 20;

/** `/evals/runs/{id}`: the page of traces, from 1. */
export const runPageQuerySchema = z.strictObject({
  page: wholeNumber(1, Math.ceil(QUALITY_LIMITS.artifacts / ARTIFACTS_PER_PAGE)).default(1),
});
