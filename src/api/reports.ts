import { z } from 'zod';
import { IMAGES_PER_ACCOUNT, REPORTS_PER_ACCOUNT, UNUSED_REPORT_IMAGES_PER_ACCOUNT } from '../constants.ts';
import { IMAGE_FIELD, imageMessages, imageRules, processImageUpload } from '../lib/image-pipeline.ts';
import { messages } from '../messages.ts';
import { uploadedCaption, uploadedImage } from '../web/image-upload.ts';
import { reportFormat } from '../openapi/report-format.ts';
import { answerOrigin } from '../serialisers/origin.ts';
import { reportImageJson, reportJson, reportListJson } from '../serialisers/reports.ts';
import { idParam, idSchema, modelPathParams } from '../schemas/path-params.schema.ts';
import {
  reportEnvelopeSchema,
  reportFormatResponseSchema,
  reportImageResponseSchema,
  reportListResponseSchema,
  reportSchemas,
} from '../schemas/report.schema.ts';
import {
  badRequest,
  errorBody,
  example,
  formErrorExample,
  imagesBusy,
  invalidQuery,
  malformedJson,
  notFound,
  operation,
  type ApiResource,
  type ResponseSpec,
} from './operation.ts';

/** Model reports (revision 3): GitHub Flavored Markdown write-ups about a model, with live cards of this service's pages. */
export const reportsApi: ApiResource = {
  tag: {
    name: 'Model reports',
    description: 'Write-ups about a model in GitHub Flavored Markdown, citing runs and embedding live cards (revision 3).',
  },

  responses(profile): Record<string, z.ZodType> {
    if (!profile.reports) return {};
    return {
      Report: reportEnvelopeSchema(profile),
      ReportList: reportListResponseSchema(profile),
      ReportFormat: reportFormatResponseSchema,
      ReportImage: reportImageResponseSchema,
    };
  },

  operations(profile) {
    if (!profile.reports) return [];
    const schemas = reportSchemas(profile);
    const rules = schemas.rules;
    const reportId = idParam(messages.reportNotFound, 'Report id');
    const unknownReport = notFound('Report', messages.reportNotFound);
    const invalid = badRequest(
      'The body fails validation (limits, contentFormat other than gfm, runs that are not approved runs of the model, images that are not yours).',
      { contentFormat: ["Must be 'gfm'"], 'benchmarkRunIds.0': [messages.reportRunNotAttachable('speed-test run', 'Qwen/Qwen3-30B-A3B')] },
      { malformed: malformedJson },
    );
    const invalidCreate: ResponseSpec = {
      ...invalid,
      description: `${invalid.description} Or you already have ${REPORTS_PER_ACCOUNT} reports (the most an account may have).`,
      examples: { ...invalid.examples, cap: formErrorExample('Report cap', messages.reportLimit(REPORTS_PER_ACCOUNT)) },
    };
    const unknownModel: ResponseSpec = {
      description: 'The model is neither in the catalogue nor on the model hub.',
      body: 'Error',
      examples: { notFound: example('Unknown model', errorBody(messages.modelNotCatalogued('nobody/nothing'))) },
    };
    const hubDown: ResponseSpec = {
      description: 'The model hub could not be asked about a model new to the catalogue; retry later.',
      body: 'Error',
      headers: ['Retry-After'],
      examples: { hub: example('Hub unavailable', errorBody(messages.hubUnavailable)) },
    };
    const published = example('A published report', {
      title: 'Qwen3-30B-A3B on a 3090: which quant and flags',
      summary: 'Q4_K_M with flash attention is the sweet spot on 24 GB.',
      contentFormat: 'gfm',
      content:
        '## Results\n\n| quant | tok/s |\n|:--|--:|\n| Q4_K_M | 112 |\n\n- [x] flash attention\n\n[[report-embed:https%3A%2F%2Fbench.example%2F%3FhfId%3DQwen%252FQwen3-30B-A3B]]',
      tags: ['3090', 'quantization'],
      benchmarkRunIds: [],
      evalRunIds: [],
      published: true,
    });
    const imageRefused = badRequest(
      `No file in the field, or not a PNG, JPEG or WebP, over 40 megapixels, or corrupt; or you keep ${IMAGES_PER_ACCOUNT} images, or ${UNUSED_REPORT_IMAGES_PER_ACCOUNT} report images no report uses yet (an unused one is deleted a day after upload).`,
      { [IMAGE_FIELD]: [imageMessages.wrongType] },
    );
    const imageTooLarge: ResponseSpec = {
      description: `The file is larger than ${imageRules.maxBytesLabel}.`,
      body: 'Error',
      examples: { tooLarge: example('Too large', errorBody(imageMessages.tooLarge)) },
    };
    const unpublishedByAdmin: ResponseSpec = {
      description: 'An admin unpublished the report: it cannot be published again.',
      body: 'Error',
      examples: { unpublished: example('Unpublished by an admin', errorBody(messages.reportUnpublishedByAdmin('spam'))) },
    };
    return [
      operation({
        operationId: 'createReport',
        route: 'POST /api/models/:org/:model/reports',
        summary: 'Write a report about a model',
        description:
          'The path carries the hfId as two segments; the model must be in the catalogue or on the model hub (then it is catalogued, as a submission does). ' +
          '`published` false (the default) keeps a draft only you see. The format (features, tokens, limits) is at GET /api/report-format.',
        auth: 'key|session',
        pathParams: modelPathParams,
        body: { component: 'ReportCreate', schema: schemas.create, examples: { published } },
        responses: {
          201: { description: 'The stored report.', body: 'Report', headers: ['Location'] },
          400: invalidCreate,
          404: unknownModel,
          503: hubDown,
        },
        async handle({ req, res, app, params, body, userId }) {
          const report = await app.services.reports.create(userId(), `${params.org}/${params.model}`, body);
          res
            .status(201)
            .location(`/api/reports/${report.id}`)
            .json({ report: reportJson(report, answerOrigin(req, res, app.config)) });
        },
      }),
      operation({
        operationId: 'listModelReports',
        route: 'GET /api/models/:org/:model/reports',
        summary: 'Published reports about a model',
        auth: 'public',
        pathParams: modelPathParams,
        query: {
          schema: schemas.listQuery,
          descriptions: {
            limit: `Reports per page (${rules.listLimit.min}-${rules.listLimit.max}, default ${rules.listLimit.default})`,
            offset: 'Reports to skip',
          },
        },
        responses: {
          200: { description: 'A page of published reports, newest first.', body: 'ReportList' },
          400: invalidQuery({ limit: [`Must be at most ${rules.listLimit.max}`] }),
          404: {
            description: 'The model is not in the catalogue.',
            body: 'Error',
            examples: { notFound: example('Unknown model', errorBody(messages.modelNotCatalogued('nobody/nothing'))) },
          },
        },
        async handle({ req, res, app, params, query }) {
          const page = await app.services.reports.listForModel(`${params.org}/${params.model}`, query);
          res.json(reportListJson(page, answerOrigin(req, res, app.config)));
        },
      }),
      operation({
        operationId: 'getReport',
        route: 'GET /api/reports/:id',
        summary: 'One report',
        description: 'A published report, or your own draft (anyone else gets 404).',
        auth: 'public',
        pathParams: reportId,
        responses: { 200: { description: 'The report.', body: 'Report' }, 404: unknownReport },
        async handle({ req, res, app, params, viewerId }) {
          const report = await app.services.reports.get(params.id, viewerId);
          res.json({ report: reportJson(report, answerOrigin(req, res, app.config)) });
        },
      }),
      operation({
        operationId: 'updateReport',
        route: 'PATCH /api/reports/:id',
        summary: 'Change your report',
        description:
          'Only the fields given change (lists are replaced whole). `published: true` publishes a draft, `false` takes it back to a draft.',
        auth: 'key|session',
        pathParams: reportId,
        body: {
          component: 'ReportPatch',
          schema: schemas.patch,
          examples: {
            publish: example('Publish a draft', { published: true }),
            retitle: example('New title and tags', { title: 'Qwen3 on a 3090, revisited', tags: ['3090'] }),
          },
        },
        responses: {
          200: { description: 'The report as stored now.', body: 'Report' },
          400: invalid,
          404: unknownReport,
          409: unpublishedByAdmin,
        },
        async handle({ req, res, app, params, body, userId }) {
          const report = await app.services.reports.update(userId(), params.id, body);
          res.json({ report: reportJson(report, answerOrigin(req, res, app.config)) });
        },
      }),
      operation({
        operationId: 'deleteReport',
        route: 'DELETE /api/reports/:id',
        summary: 'Delete your report',
        auth: 'key|session',
        pathParams: reportId,
        responses: { 204: { description: 'Deleted (no body).' }, 404: unknownReport },
        async handle({ res, app, params, userId }) {
          await app.services.reports.remove(userId(), params.id);
          res.status(204).end();
        },
      }),
      operation({
        operationId: 'uploadReportImage',
        route: 'POST /api/reports/images',
        summary: 'Upload an image for your reports',
        description:
          `multipart/form-data with one file in the field \`${IMAGE_FIELD}\`: ${imageRules.contentTypes.join(', ')} (judged by content), at most ${imageRules.maxBytesLabel} and ${imageRules.maxPixelsLabel}; ` +
          "it is re-encoded without metadata. Put `[[report-image:<id>]]` in a report's content: only your own images render.",
        auth: 'key|session',
        upload: { field: IMAGE_FIELD, description: 'The image file' },
        responses: {
          201: { description: 'The stored image: its id for the token, and its addresses.', body: 'ReportImage', headers: ['Location'] },
          400: imageRefused,
          413: imageTooLarge,
          503: imagesBusy,
        },
        async handle({ req, res, app, userId }) {
          const caption = uploadedCaption(req);
          const stored = await app.services.reports.storeImage(userId(), await processImageUpload(uploadedImage(req)), caption);
          const image = reportImageJson(stored, answerOrigin(req, res, app.config));
          res.status(201).location(image.url).json(image);
        },
      }),
      ...publicationOperations(reportId, unknownReport, unpublishedByAdmin),
      operation({
        operationId: 'attachReportImage',
        route: 'POST /api/reports/:id/images',
        summary: 'Upload an image onto your report',
        description:
          `multipart/form-data with one file in \`file\` or \`${IMAGE_FIELD}\` (${imageRules.contentTypes.join(', ')}, judged by content, at most ${imageRules.maxBytesLabel} and ${imageRules.maxPixelsLabel}; ` +
          `re-encoded without metadata), and optionally \`caption\` (or \`altText\`, at most 300 characters: the image's alternative text where the report shows it). The image is listed in the report's \`imageIds\` (at most ${rules.imagesMax}); put \`[[report-image:<id>]]\` in its content to show it.`,
        auth: 'key|session',
        pathParams: reportId,
        upload: { field: 'file', alsoField: IMAGE_FIELD, description: 'The image file' },
        responses: {
          201: { description: 'The stored image, attached to the report.', body: 'ReportImage', headers: ['Location'] },
          400: imageRefused,
          404: unknownReport,
          409: {
            description: `The report holds ${rules.imagesMax} images already.`,
            body: 'Error',
            examples: { full: example('Report full', errorBody(messages.reportImagesFull(rules.imagesMax))) },
          },
          413: imageTooLarge,
          503: imagesBusy,
        },
        async handle({ req, res, app, params, userId }) {
          const caption = uploadedCaption(req);
          const stored = await app.services.reports.attachImage(userId(), params.id, await processImageUpload(uploadedImage(req)), caption);
          const image = reportImageJson(stored, answerOrigin(req, res, app.config));
          res.status(201).location(image.url).json(image);
        },
      }),
      operation({
        operationId: 'deleteReportImage',
        route: 'DELETE /api/reports/:id/images/:imageId',
        summary: 'Delete an image of your report',
        description: 'It leaves the report and is deleted; a token naming it in the content then stays text.',
        auth: 'key|session',
        pathParams: reportImageParams,
        responses: { 204: { description: 'Deleted (no body).' }, 404: notFound('Report image', messages.reportImageNotFound) },
        async handle({ res, app, params, userId }) {
          await app.services.reports.detachImage(userId(), params.id, params.imageId);
          res.status(204).end();
        },
      }),
      operation({
        operationId: 'getReportFormat',
        route: 'GET /api/report-format',
        summary: 'The report format contract',
        description:
          'Features, token grammar, limits, the image protocol, lifecycle endpoints and worked examples, from the constants validation uses.',
        auth: 'public',
        responses: { 200: { description: 'The format contract.', body: 'ReportFormat' } },
        handle({ res }) {
          res.json(reportFormat(rules));
        },
      }),
    ];
  },
};

const reportImageParams = z.object({
  id: idSchema(messages.reportNotFound, 'Report id'),
  imageId: idSchema(messages.reportImageNotFound, 'Image id'),
});

/**
 * POST and DELETE /api/reports/{id}/publication: publish and unpublish as their own
 * resource (the LocalMaxxing CLI's `report publish|unpublish`), the same change as PATCH
 * with `published`.
 */
function publicationOperations(
  reportId: z.ZodObject<{ id: z.ZodType<string> }>,
  unknownReport: ResponseSpec,
  unpublishedByAdmin: ResponseSpec,
) {
  return ([true, false] as const).map((published) =>
    operation({
      operationId: published ? 'publishReport' : 'unpublishReport',
      route: `${published ? 'POST' : 'DELETE'} /api/reports/:id/publication`,
      summary: published ? 'Publish your report' : 'Take your report back to a draft',
      description: published
        ? 'The same as PATCH with `published: true`; publishing a published report answers it as it is. No body.'
        : 'The same as PATCH with `published: false`: only you see it again. No body.',
      auth: 'key|session',
      pathParams: reportId,
      responses: {
        200: { description: 'The report as stored now.', body: 'Report' },
        404: unknownReport,
        ...(published ? { 409: unpublishedByAdmin } : {}),
      } as Record<number, ResponseSpec>,
      async handle({ req, res, app, params, userId }) {
        const report = await app.services.reports.update(userId(), params.id, { published });
        res.json({ report: reportJson(report, answerOrigin(req, res, app.config)) });
      },
    }),
  );
}
