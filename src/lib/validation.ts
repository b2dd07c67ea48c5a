import type { z } from 'zod';
import { ValidationFailed, type ValidationDetails } from './errors.ts';

/**
 * The contract's validation shape: issues keyed by their dotted path
 * (`hardware.gpus.1.vramGb`); issues about the whole object go to `formErrors`,
 * and each unknown key becomes a field error of its own.
 */
export function validationDetails(error: z.ZodError): ValidationDetails {
  const fieldErrors: Record<string, string[]> = {};
  const formErrors: string[] = [];
  const add = (path: string, message: string) => {
    (fieldErrors[path] ??= []).push(message);
  };
  for (const issue of error.issues) {
    const base = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) add(base ? `${base}.${key}` : key, 'Unknown field');
    } else if (base) {
      add(base, issue.message);
    } else {
      formErrors.push(issue.message);
    }
  }
  return { fieldErrors, formErrors };
}

/** Parses `input` or throws the contract's 400 validation error. */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw new ValidationFailed(validationDetails(result.error));
  return result.data;
}
