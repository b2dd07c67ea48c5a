import { fileTypeFromBuffer } from 'file-type';
import type { Metadata, Sharp, default as SharpModule } from 'sharp';
import { messages } from '../messages.ts';
import { PayloadTooLarge, Unavailable, ValidationFailed } from './errors.ts';
import { createWorkQueue } from './work-queue.ts';

type SharpConstructor = typeof SharpModule;

/**
 * Uploaded images (listing photos, report images): the type is judged by the content
 * (file-type), the pixels are decoded and re-encoded by sharp with a pixel limit, so what we
 * store and serve is always an image we made: EXIF orientation applied, every piece of
 * metadata (EXIF, GPS, XMP, ICC, comments) gone, and a thumbnail beside it. Nothing here is
 * hand-rolled: file-type reads the magic bytes, libvips reads the headers and the pixels.
 * The rules are exported from here so the format documents and the pages quote them.
 */

/** Largest upload accepted (the multipart limit too). */
export const IMAGE_MAX_BYTES = 8 * 1024 * 1024;
export const IMAGE_MAX_BYTES_LABEL = '8 MiB';
/** Largest image by pixel count, checked from the header before any pixel is decoded. */
export const IMAGE_MAX_PIXELS = 40_000_000;
export const IMAGE_MAX_PIXELS_LABEL = '40 megapixels';
/** Thumbnails are at most this wide (never enlarged). */
export const IMAGE_THUMB_MAX_WIDTH = 480;
/** The content types accepted, and the only ones served. */
export const IMAGE_CONTENT_TYPES = ['image/png', 'image/jpeg', 'image/webp'] as const;
export type ImageContentType = (typeof IMAGE_CONTENT_TYPES)[number];

/** The image rules as one value (documents, agent-context, pages). */
export const imageRules = Object.freeze({
  maxBytes: IMAGE_MAX_BYTES,
  maxBytesLabel: IMAGE_MAX_BYTES_LABEL,
  maxPixels: IMAGE_MAX_PIXELS,
  maxPixelsLabel: IMAGE_MAX_PIXELS_LABEL,
  thumbMaxWidth: IMAGE_THUMB_MAX_WIDTH,
  contentTypes: IMAGE_CONTENT_TYPES,
});

/**
 * `/api/marketplace/images/{id}/content` of an image, with `?variant=thumb` for its
 * thumbnail: the one address of every stored image (listing photos and report images alike).
 */
export const imageContentPath = (imageId: string, variant: 'full' | 'thumb' = 'full') =>
  `/api/marketplace/images/${imageId}/content${variant === 'thumb' ? '?variant=thumb' : ''}`;

/**
 * Re-encoding a large image takes a libuv thread (one of four, shared with file reads,
 * compression and password hashing) and a core for seconds. Uploads take turns: one at a
 * time, a few waiting, and past that the upload path answers 503 for itself; libvips gets
 * one thread per image and no operation cache (no input is ever processed twice), which
 * leaves the other core, the other threads and the memory to everything else.
 */
export const IMAGE_PROCESSING_AT_ONCE = 1;
export const IMAGE_PROCESSING_WAITING = 4;
const IMAGE_BUSY_RETRY_SECONDS = 5;
let sharpLoaded: Promise<SharpConstructor> | undefined;

/**
 * sharp, loaded at the first image an instance processes rather than at start: libvips and
 * its libraries add about 24 MB to the resident set (measured with Node 20 on this machine),
 * which an instance that only serves reads never needs. Configured once, as above.
 */
export function loadSharp(): Promise<SharpConstructor> {
  sharpLoaded ??= import('sharp').then(({ default: sharp }) => {
    sharp.concurrency(1);
    sharp.cache(false);
    return sharp;
  });
  return sharpLoaded;
}
export const imageProcessingQueue = createWorkQueue({
  concurrency: IMAGE_PROCESSING_AT_ONCE,
  maxWaiting: IMAGE_PROCESSING_WAITING,
  busy: () => new Unavailable(messages.imagesBusy, IMAGE_BUSY_RETRY_SECONDS),
});

/** The field a multipart upload carries the image in. */
export const IMAGE_FIELD = 'image';

export const imageMessages = {
  missing: `Attach one image file in the multipart field "${IMAGE_FIELD}"`,
  tooLarge: `Image is larger than ${IMAGE_MAX_BYTES_LABEL}`,
  wrongType: 'Image must be PNG, JPEG or WebP (judged by its content, not its name)',
  tooManyPixels: `Image has more than ${IMAGE_MAX_PIXELS_LABEL}`,
  corrupt: 'Image could not be decoded (corrupt or truncated file)',
} as const;

export interface ProcessedImageVariant {
  contentType: ImageContentType;
  bytes: Buffer;
  width: number;
  height: number;
}

export interface ProcessedImage extends ProcessedImageVariant {
  thumb: ProcessedImageVariant;
}

/** A 400 naming the broken image rule, in the contract's validation shape. */
export function imageRuleBroken(message: string): ValidationFailed {
  return new ValidationFailed({ fieldErrors: { [IMAGE_FIELD]: [message] }, formErrors: [] });
}

const OUTPUT: Record<ImageContentType, (pipeline: Sharp) => Sharp> = {
  'image/png': (pipeline) => pipeline.png(),
  'image/jpeg': (pipeline) => pipeline.jpeg({ quality: 85 }),
  'image/webp': (pipeline) => pipeline.webp({ quality: 85 }),
};

function isAccepted(mime: string | undefined): mime is ImageContentType {
  return (IMAGE_CONTENT_TYPES as readonly string[]).includes(mime ?? '');
}

async function encode(source: Buffer, contentType: ImageContentType, width?: number): Promise<ProcessedImageVariant> {
  const sharp = await loadSharp();
  // limitInputPixels makes libvips refuse a bomb from its header; failOn 'error' refuses truncated data.
  let pipeline = sharp(source, { limitInputPixels: IMAGE_MAX_PIXELS, failOn: 'error' }).rotate();
  if (width !== undefined) pipeline = pipeline.resize({ width, withoutEnlargement: true });
  // No withMetadata()/keepExif(): sharp writes none of the input's metadata.
  const { data, info } = await OUTPUT[contentType](pipeline).toBuffer({ resolveWithObject: true });
  return { contentType, bytes: data, width: info.width, height: info.height };
}

/**
 * Checks and re-encodes an upload. Throws a 413 over 8 MiB, and a 400 naming the rule for
 * anything that is not a PNG, JPEG or WebP by content, is over 40 MP, or cannot be decoded;
 * a 503 when too many uploads are already waiting their turn (see IMAGE_PROCESSING_AT_ONCE).
 */
export async function processImageUpload(bytes: Buffer): Promise<ProcessedImage> {
  if (bytes.length > IMAGE_MAX_BYTES) throw new PayloadTooLarge(imageMessages.tooLarge);
  if (bytes.length === 0) throw imageRuleBroken(imageMessages.missing);
  return imageProcessingQueue.run(() => checkAndEncode(bytes));
}

async function checkAndEncode(bytes: Buffer): Promise<ProcessedImage> {
  const detected = await fileTypeFromBuffer(bytes);
  if (!isAccepted(detected?.mime)) throw imageRuleBroken(imageMessages.wrongType);
  const contentType = detected.mime;

  const sharp = await loadSharp();
  let header: Metadata;
  try {
    // Reads only the header: a bomb (huge declared size, tiny file) is refused here.
    header = await sharp(bytes, { limitInputPixels: false }).metadata();
  } catch {
    throw imageRuleBroken(imageMessages.corrupt);
  }
  if (!header.width || !header.height) throw imageRuleBroken(imageMessages.corrupt);
  if (header.width * header.height > IMAGE_MAX_PIXELS) throw imageRuleBroken(imageMessages.tooManyPixels);

  try {
    const full = await encode(bytes, contentType);
    const thumb = await encode(full.bytes, contentType, IMAGE_THUMB_MAX_WIDTH);
    return { ...full, thumb };
  } catch (error) {
    if (/pixel limit/i.test((error as Error).message)) throw imageRuleBroken(imageMessages.tooManyPixels);
    throw imageRuleBroken(imageMessages.corrupt);
  }
}
