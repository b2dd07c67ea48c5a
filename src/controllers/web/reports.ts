import type { Request, Response } from 'express';
import type { AppContext } from '../../app-context.ts';
import { Conflict, NotFound, ValidationFailed } from '../../lib/errors.ts';
import { parseOrThrow } from '../../lib/validation.ts';
import { messages } from '../../messages.ts';
import { rejectSpeedTestSchema } from '../../schemas/admin.schema.ts';
import { reportSchemas } from '../../schemas/report.schema.ts';
import type { Report } from '../../services/reports.service.ts';
import { processImageUpload } from '../../lib/image-pipeline.ts';
import { postedFields } from '../../web/forms.ts';
import { uploadedImage } from '../../web/image-upload.ts';
import { render } from '../../web/views.ts';

/** The editor's image upload without JavaScript (multipart, parsed in src/app.ts before the CSRF check). */
export const REPORT_IMAGE_FORM_PATH = '/reports/:id/images';

/** Reports with at least this many headings get a table of contents. */
const TOC_MIN_HEADINGS = 3;
const HF_ID = /^[A-Za-z0-9_.-]{1,96}\/[A-Za-z0-9_.-]{1,160}$/;

/** A posted list field (one checkbox posts a string, several an array). */
const list = (value: unknown): string[] =>
  Array.isArray(value) ? value.map(String) : typeof value === 'string' && value !== '' ? [value] : [];

/** The editor's posted fields as the API's body: tags are one comma-separated field; the button says publish or save a draft. */
function reportFromForm(body: Record<string, unknown>) {
  const text = (name: string) => (typeof body[name] === 'string' ? (body[name] as string) : '');
  return {
    title: text('title'),
    summary: text('summary'),
    content: text('content').replace(/\r\n/g, '\n'),
    tags: text('tags')
      .split(',')
      .map((tag) => tag.trim())
      .filter(Boolean),
    // Checkbox lists are posted as `name[]` (one control name, many values).
    benchmarkRunIds: list(body['benchmarkRunIds[]']),
    evalRunIds: list(body['evalRunIds[]']),
    published: body.action === 'publish',
  };
}

/** What the editor shows again: the posted text as typed. */
function formValues(body: Record<string, unknown>) {
  const fields = reportFromForm(body);
  return { ...fields, tags: typeof body.tags === 'string' ? body.tags : '' };
}

function valuesOf(report: Report) {
  return {
    title: report.title,
    summary: report.summary,
    content: report.content,
    tags: report.tags.join(', '),
    benchmarkRunIds: report.benchmarkRunIds,
    evalRunIds: report.evalRunIds,
    published: report.published,
  };
}

/** Model reports: the reader's page, the model's list, the editor with its live preview, the author's list, admin unpublishing. */
export function reportPagesController({ services, profile, config }: AppContext) {
  const { reports } = services;
  const schemas = () => reportSchemas(profile);

  async function editor(
    res: Response,
    data: {
      hfId: string;
      values: ReturnType<typeof formValues>;
      reportId?: string;
      published?: boolean;
      unpublishedReason?: string | null;
      fieldErrors?: Record<string, string[]>;
      formErrors?: string[];
      preview?: string;
    },
    status = 200,
  ) {
    const runs = await reports.attachableRuns(data.hfId);
    render(
      res,
      'pages/reports/edit',
      {
        title: data.reportId ? 'Edit report' : 'Write a report',
        fieldErrors: {},
        formErrors: [],
        rules: schemas().rules,
        runs,
        // The run picker's "insert as card" writes an embed of the run's address on this service.
        embedBase: config.publicUrl,
        ...data,
      },
      status,
    );
  }

  /** The API's errors as the editor shows them; anything else goes to the error handler. */
  function problems(error: unknown) {
    if (error instanceof ValidationFailed) return { fieldErrors: error.details.fieldErrors, formErrors: error.details.formErrors };
    if (error instanceof Conflict) return { fieldErrors: {}, formErrors: [error.message] };
    throw error;
  }

  const modelOf = (req: Request): string => {
    const hfId = typeof req.query.model === 'string' ? req.query.model : typeof req.body?.model === 'string' ? req.body.model : '';
    if (!HF_ID.test(hfId)) throw new NotFound(messages.modelNotCatalogued(hfId.slice(0, 200) || '(none)'));
    return hfId;
  };

  return {
    /** /reports/{id}: the report with its outline and its runs; drafts for their author only. */
    async show(req: Request, res: Response) {
      const viewerId = req.actor?.user.id ?? null;
      const page = await reports.page(String(req.params.id), viewerId);
      render(res, 'pages/reports/show', {
        title: page.report.title,
        ...page,
        toc: page.headings.length >= TOC_MIN_HEADINGS ? page.headings : [],
        isAdmin: Boolean(req.actor?.user.isAdmin),
      });
    },

    /** /models/{org}/{model}/reports: the published reports of a model. */
    async forModel(req: Request, res: Response) {
      const hfId = `${req.params.org}/${req.params.model}`;
      const offset = Math.max(0, Number.parseInt(String(req.query.offset ?? '0'), 10) || 0);
      const page = await reports.listForModel(hfId, { limit: 20, offset });
      const model = await services.models.detail(hfId);
      render(res, 'pages/reports/model', { title: `Reports on ${model.hfId}`, model, page });
    },

    async newForm(req: Request, res: Response) {
      const hfId = modelOf(req);
      await editor(res, { hfId, values: formValues({}) });
    },

    /** POST /reports/new: create (draft or published), or show the preview without JS (action=preview). */
    async create(req: Request, res: Response) {
      const body = postedFields(req);
      const hfId = modelOf(req);
      const values = formValues(body);
      if (body.action === 'preview')
        return editor(res, { hfId, values, preview: await reports.preview(req.actor!.user.id, values.content) });
      try {
        const input = parseOrThrow(schemas().create, reportFromForm(body));
        const report = await reports.create(req.actor!.user.id, hfId, input);
        res.redirect(303, report.published ? `/reports/${report.id}` : `/reports/${report.id}/edit`);
      } catch (error) {
        await editor(res, { hfId, values, ...problems(error) }, 400);
      }
    },

    async editForm(req: Request, res: Response) {
      const report = await reports.get(String(req.params.id), req.actor!.user.id);
      if (report.author.username !== req.actor!.user.username) throw new NotFound(messages.reportNotFound);
      await editor(res, {
        hfId: report.model.hfId,
        values: valuesOf(report),
        reportId: report.id,
        published: report.published,
        unpublishedReason: report.unpublishedReason,
      });
    },

    async update(req: Request, res: Response) {
      const id = String(req.params.id);
      const current = await reports.get(id, req.actor!.user.id);
      if (current.author.username !== req.actor!.user.username) throw new NotFound(messages.reportNotFound);
      const body = postedFields(req);
      const values = formValues(body);
      const chrome = { hfId: current.model.hfId, reportId: id, published: current.published, unpublishedReason: current.unpublishedReason };
      if (body.action === 'preview')
        return editor(res, { ...chrome, values, preview: await reports.preview(req.actor!.user.id, values.content) });
      try {
        const patch = parseOrThrow(schemas().patch, reportFromForm(body));
        const report = await reports.update(req.actor!.user.id, id, patch);
        res.redirect(303, report.published ? `/reports/${report.id}` : `/reports/${report.id}/edit`);
      } catch (error) {
        await editor(res, { ...chrome, values, ...problems(error) }, 400);
      }
    },

    /** POST /reports/{id}/images without JavaScript: stores the image, appends its token to the content, back to the editor. */
    async uploadImage(req: Request, res: Response) {
      const id = String(req.params.id);
      const userId = req.actor!.user.id;
      const current = await reports.get(id, userId);
      if (current.author.username !== req.actor!.user.username) throw new NotFound(messages.reportNotFound);
      try {
        const image = await reports.storeImage(userId, await processImageUpload(uploadedImage(req)));
        await reports.update(userId, id, {
          content: `${current.content.trimEnd()}\n\n[[report-image:${image.id}]]\n`,
          imageIds: [...current.imageIds, image.id],
        });
        res.redirect(303, `/reports/${id}/edit`);
      } catch (error) {
        const chrome = {
          hfId: current.model.hfId,
          reportId: id,
          published: current.published,
          unpublishedReason: current.unpublishedReason,
        };
        const { fieldErrors, formErrors } = problems(error);
        await editor(
          res,
          { ...chrome, values: valuesOf(current), fieldErrors: {}, formErrors: [...formErrors, ...Object.values(fieldErrors).flat()] },
          400,
        );
      }
    },

    /** POST /reports/preview (htmx, debounced while typing): the content through the same renderer. */
    async preview(req: Request, res: Response) {
      const content = typeof req.body?.content === 'string' ? req.body.content.slice(0, schemas().rules.contentMax) : '';
      render(res, 'partials/reports/preview', { html: await reports.preview(req.actor!.user.id, content) });
    },

    async remove(req: Request, res: Response) {
      await reports.remove(req.actor!.user.id, String(req.params.id));
      res.redirect(303, '/settings/reports');
    },

    /** /settings/reports: the author's drafts and published reports. */
    async own(req: Request, res: Response) {
      render(res, 'pages/settings/reports', { title: 'Your reports', reports: await reports.listOwn(req.actor!.user.id) });
    },

    /** Admin: unpublish with a reason (audited); the audit log shows it (the report is now its author's draft). */
    async unpublish(req: Request, res: Response) {
      const id = String(req.params.id);
      const { reason } = parseOrThrow(rejectSpeedTestSchema, postedFields(req));
      const actor = { id: req.actor!.user.id, username: req.actor!.user.username };
      await reports.unpublish(actor, id, reason);
      res.redirect(303, '/admin/audit');
    },
  };
}
