import type { Request, RequestHandler } from 'express';
import multer from 'multer';
import { BadRequest, type HttpError, PayloadTooLarge, ValidationFailed } from '../lib/errors.ts';
import { IMAGE_FIELD, IMAGE_MAX_BYTES, imageMessages, imageRuleBroken } from '../lib/image-pipeline.ts';
import { messages } from '../messages.ts';

/**
 * Multipart parsing of one image upload (multer): the file in field `image`, at most 8 MiB,
 * in memory, with a handful of short text fields (the pages' `_csrf`, a return address).
 * Used by the API's image uploads (after auth) and by the pages' upload forms (before the
 * CSRF check, which reads the `_csrf` field, like src/web/suite-form.ts).
 */

const oneImage = multer({
  storage: multer.memoryStorage(),
  limits: { fileSize: IMAGE_MAX_BYTES, files: 1, fields: 4, fieldSize: 4096, parts: 5, headerPairs: 50 },
});
const parseOneImage = oneImage.single(IMAGE_FIELD);
/** The field names a report image may come in: `image`, or `file` as the LocalMaxxing CLI sends it. */
export const REPORT_IMAGE_FIELDS = [IMAGE_FIELD, 'file'] as const;
const parseOneImageOfEither = oneImage.fields(REPORT_IMAGE_FIELDS.map((name) => ({ name, maxCount: 1 })));

/** The page form that uploads a listing's photo (src/routes/web.ts). */
export const LISTING_IMAGE_FORM_PATH = '/settings/listings/:id/images';

/** multer's errors as the contract's: a file over 8 MiB is a 413, other limits and a wrong field name a 400 naming the rule. */
export function imageUploadError(error: unknown): HttpError {
  const code = (error as { code?: string } | null)?.code;
  if (code === 'LIMIT_FILE_SIZE') return new PayloadTooLarge(imageMessages.tooLarge);
  if (code === 'LIMIT_UNEXPECTED_FILE' || code === 'LIMIT_FILE_COUNT') return imageRuleBroken(imageMessages.missing);
  if (typeof code === 'string' && code.startsWith('LIMIT_')) return new BadRequest(messages.tooManyFormFields);
  return new BadRequest(messages.malformedMultipart);
}

/** Parses a multipart image upload (a request of another type passes untouched; the handler then finds no file). */
export const imageUpload: RequestHandler = (req, res, next) => {
  parseOneImage(req, res, (error?: unknown) => next(error ? imageUploadError(error) : undefined));
};

/** The same, with the file in any of REPORT_IMAGE_FIELDS (one file in all). */
export const imageUploadOfEither: RequestHandler = (req, res, next) => {
  parseOneImageOfEither(req, res, (error?: unknown) => next(error ? imageUploadError(error) : undefined));
};

/**
 * A page form's upload, mounted at its path before the CSRF check: parsed only for a POST to
 * exactly that path by a signed-in user (nobody else gets to make the server buffer a file).
 */
export const imageFormUpload: RequestHandler = (req, res, next) =>
  req.actor && req.method === 'POST' && (req.path === '/' || req.path === '') ? imageUpload(req, res, next) : next();

/** The uploaded image's bytes, or the 400 saying where to put it. */
export function uploadedImage(req: Request): Buffer {
  const parsed = req as Request & { file?: { buffer: Buffer }; files?: Record<string, { buffer: Buffer }[]> };
  const file = parsed.file ?? Object.values(parsed.files ?? {}).flat()[0];
  if (!file || file.buffer.length === 0) throw imageRuleBroken(imageMessages.missing);
  return file.buffer;
}

/** The longest caption kept with an image. */
export const IMAGE_CAPTION_MAX = 300;

/**
 * The caption sent beside an uploaded file (`caption`, or `altText` as the LocalMaxxing
 * clients name it), trimmed; null when none is given; a 400 naming the field when it is not
 * one short line of text.
 */
export function uploadedCaption(req: Request): string | null {
  const fields = (req.body ?? {}) as Record<string, unknown>;
  const field = fields.caption !== undefined ? 'caption' : 'altText';
  const value = fields[field];
  if (value === undefined) return null;
  const caption = typeof value === 'string' ? value.trim() : null;
  if (caption === null || caption.length > IMAGE_CAPTION_MAX)
    throw new ValidationFailed({ fieldErrors: { [field]: [`Must be text of at most ${IMAGE_CAPTION_MAX} characters`] }, formErrors: [] });
  return caption || null;
}
