import { z } from 'zod';

/** An error message that says "Required" when the field is missing and `what` otherwise. */
export const expected = (what: string) => (issue: { input?: unknown }) => (issue.input === undefined ? 'Required' : what);

/**
 * An optional, trimmed string of at most `max` characters where an empty one counts as not
 * supplied: the LocalMaxxing Go CLI sends an option it was not given as "".
 */
export const blankAsOmitted = (max: number) =>
  z
    .string({ error: 'Must be a string' })
    .trim()
    .max(max, `Must be at most ${max} characters`)
    .optional()
    .transform((value) => value || undefined);

/** A required, trimmed, non-empty string of at most `max` characters. */
export const text = (max: number) =>
  z
    .string({ error: expected('Must be a string') })
    .trim()
    .min(1, 'Must not be empty')
    .max(max, `Must be at most ${max} characters`);
