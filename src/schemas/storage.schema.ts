import { z } from 'zod';
import { documentedAs } from './json-schema.ts';
import { expected, text } from './text-fields.ts';

/** Requests and answers of quality storage (uploads and downloads of datasets and artifacts). */

/** DECISIONS.md "Real clients": objects live in Postgres like images, within these limits. */
export const STORAGE_LIMITS = {
  objectBytes: 64 * 1024 * 1024,
  userBytes: 1024 * 1024 * 1024,
  userObjects: 200,
  /** Uploads not completed by then are swept. */
  unfinishedMs: 24 * 60 * 60_000,
} as const;

export const STORAGE_KINDS = ['dataset', 'artifact'] as const;
export type StorageKind = (typeof STORAGE_KINDS)[number];

export const uploadRequestSchema = z.strictObject({
  kind: z.enum(STORAGE_KINDS, { error: `Must be one of: ${STORAGE_KINDS.join(', ')}` }),
  filename: text(256),
  contentType: text(128),
  format: text(32),
  byteSize: z
    .number({ error: expected('Must be a number') })
    .int('Must be an integer')
    .min(1, 'Must be at least 1')
    .max(STORAGE_LIMITS.objectBytes, 'Must be at most 64 MiB (67108864 bytes)'),
  sha256: z.string({ error: expected('Must be a string') }).regex(/^[0-9a-fA-F]{64}$/, 'Must be a SHA-256 digest in hex (64 characters)'),
  itemCount: z
    .number({ error: 'Must be a number' })
    .int('Must be an integer')
    .min(0, 'Must be at least 0')
    .max(1_000_000_000, 'Too large')
    .optional(),
});

/** `storageRef` as upload-url answered it (`{ key }`), or the key alone. */
export const completeRequestSchema = z.strictObject({
  storageRef: z.union([z.strictObject({ key: text(64) }), text(64)], { error: 'Must be the storageRef upload-url answered ({ key })' }),
});

export const storageKeyQuerySchema = z.strictObject({ key: text(64) });

/** The query of a signed URL: when it expires (Unix seconds) and its signature. */
export const signedQuerySchema = z.strictObject({
  expires: documentedAs(
    z
      .string({ error: 'Must be given once' })
      .regex(/^\d{1,12}$/, 'Must be a whole number')
      .transform(Number),
    { type: 'integer', minimum: 0 },
  ),
  signature: z.string({ error: 'Must be given once' }).regex(/^[0-9a-f]{64}$/, 'Must be the signature this service gave'),
});

export const SIGNED_QUERY_DESCRIPTIONS = {
  expires: 'When the URL stops working (Unix seconds), as this service signed it',
  signature: 'The signature this service gave with the URL',
};

const storageObject = z.object({
  key: z.string(),
  kind: z.enum(STORAGE_KINDS),
  filename: z.string(),
  contentType: z.string(),
  format: z.string(),
  byteSize: z.int().min(1),
  sha256: z.string(),
  itemCount: z.int().min(0).nullable(),
  uploaded: z.boolean(),
  completedAt: z.string().nullable(),
  createdAt: z.string(),
});

export const uploadUrlResponseSchema = z.object({
  uploadUrl: z.string().meta({ description: 'PUT the bytes here (no credentials) before `expiresAt`' }),
  headers: z.record(z.string(), z.string()).meta({ description: 'Headers to send with the PUT' }),
  storageRef: z.object({ key: z.string() }).meta({ description: 'Give it to `complete` after the PUT' }),
  key: z.string(),
  expiresAt: z.string(),
});
export const storedObjectResponseSchema = z.object({ object: storageObject });
export const downloadUrlResponseSchema = z.object({
  downloadUrl: z.string().meta({ description: 'GET the bytes here (no credentials) before `expiresAt`' }),
  expiresAt: z.string(),
  object: storageObject,
});

export const runBundleResponseSchema = z
  .object({
    slug: z.string(),
    name: z.string(),
    runner: z.enum(['CUSTOM', 'LM_EVAL_HARNESS']),
    suiteDoc: z.record(z.string(), z.unknown()),
    suite: z.object({
      slug: z.string(),
      name: z.string(),
      runner: z.enum(['CUSTOM', 'LM_EVAL_HARNESS']),
      suiteDoc: z.record(z.string(), z.unknown()),
    }),
    downloadUrls: z.record(z.string(), z.string()).meta({ description: 'Signed JSON Lines download of each shard task, by task key' }),
    expiresAt: z.string().meta({ description: 'When the signed URLs stop working (15 minutes)' }),
  })
  .meta({ description: 'Everything a client needs to run a suite: its whole document, shard datasets as signed download URLs' });
