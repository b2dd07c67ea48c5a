import type { Request } from 'express';
import type { z } from 'zod';
import { validationDetails } from '../lib/validation.ts';
import { hwClasses } from '../constants.ts';

/** A posted form checked by a schema: the data, or the errors to show next to the fields. */
export type FormResult<T> = { ok: true; data: T } | { ok: false; fieldErrors: Record<string, string[]>; formErrors: string[] };

/**
 * Parses a posted form with the same schema the API uses; a failure is returned (not thrown)
 * so the page can show the form again with each error next to its field.
 */
export function parseForm<S extends z.ZodType>(schema: S, input: unknown): FormResult<z.output<S>> {
  const parsed = schema.safeParse(input ?? {});
  return parsed.success ? { ok: true, data: parsed.data } : { ok: false, ...validationDetails(parsed.error) };
}

/**
 * The posted fields. Only urlencoded and JSON bodies are parsed: a body of any other type is
 * left unread (`req.body` unset) and counts as an empty form.
 */
export function postedFields(req: Request): Record<string, unknown> {
  return (req.body ?? {}) as Record<string, unknown>;
}

/** The posted form's own text values, for showing it again with its errors. */
export function postedValues(body: unknown): Record<string, string> {
  if (!body || typeof body !== 'object') return {};
  return Object.fromEntries(Object.entries(body).filter(([key, v]) => typeof v === 'string' && key !== '_csrf')) as Record<string, string>;
}

/** The hardware classes as the forms offer them. */
export const HW_CLASS_OPTIONS: readonly { value: string; label: string }[] = [
  { value: 'DISCRETE_GPU', label: 'Discrete GPU(s)' },
  { value: 'UNIFIED', label: 'Unified memory chip (Apple, Ryzen AI, …)' },
  { value: 'CPU_ONLY', label: 'CPU only' },
];

/** A posted hardware class when it is one, else undefined. */
export const knownHwClass = (value: unknown): (typeof hwClasses)[number] | undefined =>
  hwClasses.includes(value as never) ? (value as (typeof hwClasses)[number]) : undefined;
