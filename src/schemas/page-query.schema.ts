import { z } from 'zod';
import { wholeNumber } from './query-params.ts';

/** `?offset=` of a paged page (other parameters are left to the page). */
export const offsetQuerySchema = z.object({ offset: wholeNumber(0, 10_000_000).default(0) });
