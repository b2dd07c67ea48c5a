import type { z } from 'zod';
import { ValidationFailed, type ValidationDetails } from './errors.ts';

/**
 * The contract's validation shape: issues keyed by their dotted path
 * (`hardware.gpus.1.vramGb`); issues about the whole object go to `formErrors`,
 * and each unknown key becomes a field error of its own.
 */
export function validationDetails(error: z.ZodError, prefix?: string): ValidationDetails {
  // A Map, not an object literal: a path may be any user-given key, `__proto__` included.
  const fieldErrors = new Map<string, string[]>();
  const formErrors: string[] = [];
  const add = (path: string, message: string) => {
    const messages = fieldErrors.get(path);
    if (messages) messages.push(message);
    else fieldErrors.set(path, [message]);
  };
  for (const issue of error.issues) {
    const base = [...(prefix ? [prefix] : []), ...issue.path.map(String)].join('.');
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) add(base ? `${base}.${key}` : key, 'Unknown field');
    } else if (base) {
      add(base, issue.message);
    } else {
      formErrors.push(issue.message);
    }
  }
  return { fieldErrors: Object.fromEntries(fieldErrors), formErrors };
}

/** Dotted path of the first string holding a NUL character, which Postgres text cannot store. */
export function findNulCharacter(value: unknown, path: string[] = []): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path.join('.') : undefined;
  if (value && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      if (key.includes('\u0000')) return [...path, key].join('.');
      const found = findNulCharacter(child, [...path, key]);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** Parses `input` or throws the contract's 400 validation error; `prefix` roots the paths. */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, prefix?: string): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw new ValidationFailed(validationDetails(result.error, prefix));
  return result.data;
}
