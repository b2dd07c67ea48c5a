import { z } from 'zod';

/** An error message that says "Required" when the field is missing and `what` otherwise. */
export const expected = (what: string) => (issue: { input?: unknown }) => (issue.input === undefined ? 'Required' : what);

/** A required, trimmed, non-empty string of at most `max` characters. */
export const text = (max: number) =>
  z
    .string({ error: expected('Must be a string') })
    .trim()
    .min(1, 'Must not be empty')
    .max(max, `Must be at most ${max} characters`);
