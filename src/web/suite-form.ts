import type { Request } from 'express';
import multer from 'multer';
import type { AppContext } from '../app-context.ts';
import { BadRequest, type HttpError, PayloadTooLarge, ValidationFailed } from '../lib/errors.ts';
import { findInputProblem, jsonNestsDeeperThan, MAX_INPUT_DEPTH, validationDetails } from '../lib/validation.ts';
import { messages } from '../messages.ts';
import { suiteRegistrationSchema, type SuiteRegistration } from '../schemas/quality.schema.ts';
import { postedFields } from './forms.ts';

/**
 * The suite form of /evals/new and of a correction on /settings/submissions: the suite's
 * JSON pasted in a textarea or uploaded as a file, checked exactly as the API's dry-run
 * checks it, with every problem named by its path in the document.
 */

/** The pages that post the suite form (new, its live check, a correction). */
export const SUITE_FORM_PATHS = [
  '/evals/new',
  '/evals/new/check',
  '/settings/submissions/suites/:id/edit',
  '/settings/submissions/suites/:id/check',
];

/** Largest suite file accepted: the API's suite body limit. */
export const SUITE_FILE_BYTES = 16 * 1024 * 1024;

/**
 * Multipart parsing for the suite forms: the pasted text, the CSRF field and at most one
 * file, in memory (so at most two suite-sized parts per request). Mounted for signed-in
 * users before the CSRF check, which reads the form's `_csrf` field.
 */
export const suiteFormUpload = multer({
  storage: multer.memoryStorage(),
  limits: { fileSize: SUITE_FILE_BYTES, files: 1, fields: 3, fieldSize: SUITE_FILE_BYTES },
}).single('file');

/** One problem as the form lists it: its path in the document (none for the whole text) and what is wrong. */
export interface SuiteProblem {
  path: string | null;
  message: string;
}

export type SuiteCheck =
  | { valid: true; text: string; suite: SuiteRegistration; taskKeys: string[]; itemCount: number }
  /** `status`: 409 when the only problem is a slug another live suite holds (as POST answers), else 400. */
  | { valid: false; text: string; problems: SuiteProblem[]; status: 400 | 409 };

/** The submitted JSON: an uploaded file wins over the textarea. */
export function suiteFormText(req: Request): string {
  const file = (req as Request & { file?: { buffer: Buffer } }).file;
  // Editors on Windows often save JSON with a byte-order mark, which JSON.parse refuses.
  if (file && file.buffer.length > 0) return file.buffer.toString('utf8').replace(/^\uFEFF/, '');
  const pasted = postedFields(req).suite;
  return typeof pasted === 'string' ? pasted : '';
}

const problemsOf = (details: { fieldErrors: Record<string, string[]>; formErrors: string[] }): SuiteProblem[] => [
  ...details.formErrors.map((message) => ({ path: null, message })),
  ...Object.entries(details.fieldErrors).flatMap(([path, list]) => list.map((message) => ({ path, message }))),
];

/**
 * Checks the text as a registration (or, with `exceptId`, a correction of that suite of the
 * user's): JSON, the input rules every request meets, the revision's schema, then the
 * service's checks (slug, dataset references, multiple-choice golds). Writes nothing.
 */
export async function checkSuiteText(app: AppContext, userId: string, text: string, exceptId?: string): Promise<SuiteCheck> {
  const invalid = (...problems: SuiteProblem[]): SuiteCheck => ({ valid: false, text, problems, status: 400 });
  if (text.trim() === '') return invalid({ path: null, message: "Paste the suite's JSON or choose a .json file" });
  if (jsonNestsDeeperThan(Buffer.from(text, 'utf8'))) return invalid({ path: null, message: messages.nestedTooDeep(MAX_INPUT_DEPTH) });
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    return invalid({ path: null, message: `Not valid JSON: ${(error as Error).message}` });
  }
  const stored = findInputProblem(body);
  if (stored) {
    const message =
      stored.kind === 'tooDeep'
        ? messages.nestedTooDeep(stored.maxDepth)
        : stored.kind === 'nul'
          ? messages.noNulCharacters
          : messages.notWellFormedUnicode;
    return invalid({ path: stored.kind === 'tooDeep' ? null : stored.path || null, message });
  }
  const parsed = suiteRegistrationSchema(app.profile).safeParse(body);
  if (!parsed.success) return invalid(...problemsOf(validationDetails(parsed.error)));
  try {
    const checked = await app.services.qualitySuites.dryRun(userId, parsed.data, { exceptId });
    return { valid: true, text, suite: parsed.data, taskKeys: checked.taskKeys, itemCount: checked.itemCount };
  } catch (error) {
    if (!(error instanceof ValidationFailed)) throw error;
    const problems = problemsOf(error.details);
    const onlySlugTaken =
      problems.length === 1 && problems[0].path === 'slug' && problems[0].message === messages.qualitySlugTaken(parsed.data.slug);
    return { valid: false, text, problems, status: onlySlugTaken ? 409 : 400 };
  }
}

/**
 * The multipart parser's errors as the app's: a file over the limit is a 413, too many parts
 * or fields a 400 saying what the form takes, and anything else (no boundary, a truncated
 * body: the parser's own words) a 400 malformed-body error. Only parsing fails here.
 */
export function uploadError(error: unknown): HttpError {
  const code = (error as { code?: string } | null)?.code;
  if (code === 'LIMIT_FILE_SIZE' || code === 'LIMIT_FIELD_VALUE') return new PayloadTooLarge(messages.payloadTooLargeOf('16 MB'));
  if (typeof code === 'string' && code.startsWith('LIMIT_'))
    return new ValidationFailed({ fieldErrors: {}, formErrors: ['Send the suite as one pasted text or one .json file'] });
  return new BadRequest(messages.malformedMultipart);
}
