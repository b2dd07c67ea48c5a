import { z } from 'zod';
import type { ReportRules, RevisionProfile } from '../revisions.ts';
import { perRevision, wholeNumber } from './query-params.ts';

/**
 * Model reports (revision 3): the create and patch bodies, built from the profile's report
 * rules, which GET /api/report-format also reads, so the documented limits are the enforced ones.
 */

const typeError = (what: string) => (issue: { input?: unknown }) => (issue.input === undefined ? 'Required' : what);
const NO_CONTROL_CHARACTERS = /^[^\u0000-\u001f\u007f]*$/;

function reportFields(rules: ReportRules) {
  const text = z.string({ error: typeError('Must be a string') });
  const ids = (max: number, what: string) =>
    z
      .array(z.uuid({ error: `Must be the id of ${what}` }), { error: typeError('Must be an array of ids') })
      .max(max, `At most ${max} ids`)
      .transform((list) => [...new Set(list.map((id) => id.toLowerCase()))]);
  return {
    title: text
      .trim()
      .min(rules.title.min, 'Title is required')
      .max(rules.title.max, `Must be at most ${rules.title.max} characters`)
      .regex(NO_CONTROL_CHARACTERS, 'Must not contain control characters'),
    summary: text.trim().max(rules.summaryMax, `Must be at most ${rules.summaryMax} characters`),
    contentFormat: z.enum(rules.contentFormats, { error: `Must be ${rules.contentFormats.map((f) => `'${f}'`).join(' or ')}` }),
    content: text.max(rules.contentMax, `Must be at most ${rules.contentMax} characters`),
    tags: z
      .array(
        text
          .trim()
          .min(rules.tags.minLength, 'A tag must not be empty')
          .max(rules.tags.maxLength, `A tag must be at most ${rules.tags.maxLength} characters`)
          .regex(NO_CONTROL_CHARACTERS, 'Must not contain control characters'),
        { error: typeError('Must be an array of strings') },
      )
      .max(rules.tags.max, `At most ${rules.tags.max} tags`)
      // Tags are compared as written, ignoring case: the first spelling stays.
      .transform((tags) => tags.filter((tag, index) => tags.findIndex((other) => other.toLowerCase() === tag.toLowerCase()) === index)),
    benchmarkRunIds: ids(rules.benchmarkRunsMax, 'a speed-test run'),
    evalRunIds: ids(rules.evalRunsMax, 'a quality run'),
    imageIds: ids(rules.imagesMax, 'an uploaded image'),
    published: z.boolean({ error: typeError('Must be true or false') }),
  };
}

function buildReportSchemas(profile: RevisionProfile) {
  const rules = profile.reports;
  if (!rules) throw new Error(`Revision ${profile.revision} has no model reports`);
  const fields = reportFields(rules);
  const create = z.strictObject({
    title: fields.title,
    summary: fields.summary.default(''),
    contentFormat: fields.contentFormat.default('gfm'),
    content: fields.content,
    tags: fields.tags.default([]),
    benchmarkRunIds: fields.benchmarkRunIds.default([]),
    evalRunIds: fields.evalRunIds.default([]),
    imageIds: fields.imageIds.default([]),
    published: fields.published.default(false),
  });
  // Like the setups' PATCH: `{}` is a valid request that changes nothing.
  const patch = z.strictObject({
    title: fields.title.optional(),
    summary: fields.summary.optional(),
    contentFormat: fields.contentFormat.optional(),
    content: fields.content.optional(),
    tags: fields.tags.optional(),
    benchmarkRunIds: fields.benchmarkRunIds.optional(),
    evalRunIds: fields.evalRunIds.optional(),
    imageIds: fields.imageIds.optional(),
    published: fields.published.optional(),
  });
  const listQuery = z.strictObject({
    limit: wholeNumber(rules.listLimit.min, rules.listLimit.max).default(rules.listLimit.default),
    offset: wholeNumber(0, 1_000_000).default(0),
  });
  return { rules, create, patch, listQuery };
}

/** The report schemas of a revision that has reports (built once). */
export const reportSchemas = perRevision(buildReportSchemas);

export type ReportCreateInput = z.output<ReturnType<typeof buildReportSchemas>['create']>;
export type ReportPatchInput = z.output<ReturnType<typeof buildReportSchemas>['patch']>;

// ---------------------------------------------------------------------------
// Answers
// ---------------------------------------------------------------------------

const timestamp = z.iso.datetime({ offset: true });

export const reportResponseSchema = perRevision((profile: RevisionProfile) => {
  const { rules } = reportSchemas(profile);
  const ids = z.array(z.uuid());
  return z
    .object({
      id: z.uuid(),
      title: z.string().max(rules.title.max),
      summary: z.string().max(rules.summaryMax),
      contentFormat: z.enum(rules.contentFormats),
      content: z.string().max(rules.contentMax),
      tags: z.array(z.string()).max(rules.tags.max),
      benchmarkRunIds: ids,
      evalRunIds: ids,
      imageIds: ids,
      published: z.boolean(),
      status: z.enum(['draft', 'published']).meta({ description: '`draft` (published false): only its author sees it' }),
      unpublishedReason: z.string().nullable().meta({ description: 'Set when an admin unpublished the report' }),
      author: z.object({ username: z.string(), displayName: z.string(), profileUrl: z.string() }),
      model: z.object({ hfId: z.string(), displayName: z.string(), url: z.string() }),
      url: z.string().meta({ description: 'The report page' }),
      contentHtml: z.string().meta({ description: 'The content rendered to safe HTML (image paths are relative to the service)' }),
      createdAt: timestamp,
      updatedAt: timestamp,
      publishedAt: timestamp.nullable(),
    })
    .meta({ description: 'A model report' });
});

export const reportEnvelopeSchema = perRevision((profile: RevisionProfile) => z.object({ report: reportResponseSchema(profile) }));

export const reportListResponseSchema = perRevision((profile: RevisionProfile) =>
  z
    .object({ reports: z.array(reportResponseSchema(profile)), total: z.int().min(0), limit: z.int().min(1), offset: z.int().min(0) })
    .meta({ description: 'Published reports of the model, newest first' }),
);

const text = z.string();
const dictionary = z.record(z.string(), z.unknown());
export const reportFormatResponseSchema = z
  .object({
    contentFormat: z.literal('gfm'),
    rendererVersion: z.int().min(1),
    features: dictionary,
    tokens: dictionary,
    limits: dictionary,
    attachedRuns: text,
    images: dictionary,
    lifecycle: dictionary,
    examples: z.array(z.object({ name: text, content: text, html: text.optional(), renders: text.optional() })),
  })
  .meta({ description: 'The format contract of model reports' });

export const reportImageResponseSchema = z
  .object({
    id: z.uuid().meta({ description: 'Use it in `[[report-image:<id>]]` and in `imageIds`' }),
    url: z.string(),
    thumbnailUrl: z.string(),
    contentType: z.enum(['image/png', 'image/jpeg', 'image/webp']),
    width: z.int().min(1),
    height: z.int().min(1),
    caption: z.string().nullable().meta({
      description: 'The caption sent with the upload (`caption` or `altText`): the alternative text where the report shows the image',
    }),
  })
  .meta({ description: 'An uploaded report image' });
