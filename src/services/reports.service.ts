import { REPORTS_PER_ACCOUNT } from '../constants.ts';
import { createHash } from 'node:crypto';
import type { Db } from '../db/knex.ts';
import type { ProcessedImage } from '../lib/image-pipeline.ts';
import { Conflict, NotFound, ValidationFailed } from '../lib/errors.ts';
import { parseReport, renderReport, REPORT_RENDERER_VERSION, type ReportHeading, type ReportImage } from '../lib/report-markdown.ts';
import { messages } from '../messages.ts';
import type { ReportRules } from '../revisions.ts';
import type { ReportCreateInput, ReportPatchInput } from '../schemas/report.schema.ts';
import { imageContentPath } from '../lib/image-pipeline.ts';
import type { AdminActor } from './audit.service.ts';
import type { ImagesService, StoredImage } from './images.service.ts';
import type { ModelRow, ModelsService } from './models.service.ts';
import type { ReportCardsService } from './report-cards.service.ts';
import type { ServiceDeps, Transactional } from './deps.ts';
import { writeVisibly } from './visible-writes.ts';
import type { SpeedTestReads, SpeedTestRun } from '../runs/reads/speed-test-reads.ts';

/**
 * Model reports (revision 3): a write-up about a model in GitHub Flavored Markdown, with its
 * cited runs attached and live cards of this service's pages embedded. `published` false is a
 * draft only its author sees; an admin may unpublish a report with a reason (audited), after
 * which its author can edit it but not publish it again.
 *
 * The rendered HTML is cached on the row with the renderer version and a stamp of the
 * statuses of every run its cards cite: a run rejected or withdrawn changes the stamp, so
 * the next read renders again. Cards of aggregate pages (leaderboards, models, hardware) also
 * age out after LIVE_CARD_TTL_MS, since their top runs move as runs arrive.
 */

const LIVE_CARD_TTL_MS = 5 * 60_000;
const APPROVED = 'APPROVED';

export interface ReportRow {
  id: string;
  user_id: string;
  model_id: string;
  title: string;
  summary: string;
  content_format: string;
  content: string;
  tags: string[];
  benchmark_run_ids: string[];
  eval_run_ids: string[];
  image_ids: string[];
  published: boolean;
  published_at: Date | null;
  unpublished_reason: string | null;
  unpublished_at: Date | null;
  content_html: string | null;
  renderer_version: number | null;
  render_stamp: string | null;
  cited_run_ids: string[];
  has_live_cards: boolean;
  rendered_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

type JoinedRow = ReportRow & { username: string; display_name: string; hf_id: string; model_display_name: string };

export interface Report {
  id: string;
  title: string;
  summary: string;
  contentFormat: string;
  content: string;
  tags: string[];
  benchmarkRunIds: string[];
  evalRunIds: string[];
  imageIds: string[];
  published: boolean;
  status: 'draft' | 'published';
  /** Set when an admin unpublished the report (its author sees why). */
  unpublishedReason: string | null;
  /** Names and ids only: the answer's addresses are built by its serialiser (src/serialisers/reports.ts). */
  author: { username: string; displayName: string };
  model: { hfId: string; displayName: string };
  contentHtml: string;
  createdAt: string;
  updatedAt: string;
  publishedAt: string | null;
}

export interface ReportPage {
  reports: Report[];
  total: number;
  limit: number;
  offset: number;
}

/** A quality run attached to a report, as its page lists it. */
export interface AttachedEvalRun {
  id: string;
  suiteSlug: string;
  suiteName: string;
  score: number;
  quantization: string | null;
  modelHfId: string;
}

/** The model ids of a model and every finetune, quantization, adapter and merge below it. */
async function modelTreeIds(db: Db, modelId: string): Promise<string[]> {
  const { rows } = await db.raw(
    `with recursive tree as (select id from models where id = ? union select m.id from models m join tree t on m.base_model_id = t.id) select id from tree`,
    [modelId],
  );
  return rows.map((row: { id: string }) => row.id);
}

function statusStamp(statuses: readonly { id: string; status: string }[]): string {
  const text = [...statuses]
    .sort((a, b) => a.id.localeCompare(b.id))
    .map((run) => `${run.id}:${run.status}`)
    .join(',');
  return createHash('sha256').update(text).digest('base64url').slice(0, 22);
}

export function createReportsService(
  deps: Pick<ServiceDeps, 'db' | 'profile' | 'clock' | 'readIndex'> &
    Transactional & { cards: ReportCardsService; reads: SpeedTestReads; images: ImagesService; models: ModelsService },
) {
  const { db, profile, clock, cards, reads, images, models, withTransaction } = deps;
  const rules = profile.reports as ReportRules;

  const joined = () =>
    db('model_reports as r')
      .join('users as u', 'u.id', 'r.user_id')
      .join('models as m', 'm.id', 'r.model_id')
      .select('r.*', 'u.username', 'u.display_name', 'm.hf_id', 'm.display_name as model_display_name');

  /** The author's own uploaded images among `ids` (still served), as a report shows them. */
  async function authorImages(authorId: string, ids: readonly string[]): Promise<Map<string, ReportImage>> {
    const stored = await images.describe(ids);
    return new Map(
      stored
        .filter((image) => image.ownerUserId === authorId)
        .map((image) => [
          image.id,
          {
            id: image.id,
            url: imageContentPath(image.id),
            thumbnailUrl: imageContentPath(image.id, 'thumb'),
            width: image.width,
            height: image.height,
            alt: image.caption ?? 'Image uploaded by the author',
          },
        ]),
    );
  }

  /** Renders content as the author's report would show it: their images, live cards. */
  async function render(authorId: string, content: string) {
    const parsed = parseReport(content, { isOwnUrl: cards.isOwnUrl });
    const [images, resolved] = await Promise.all([authorImages(authorId, parsed.imageIds), cards.resolve(parsed.embedUrls)]);
    const statuses =
      resolved.citedRunIds.length > 0 ? await db('speed_test_runs').whereIn('id', resolved.citedRunIds).select('id', 'status') : [];
    return {
      html: renderReport(parsed, { images, cards: resolved.cards }),
      headings: parsed.headings,
      citedRunIds: resolved.citedRunIds,
      live: resolved.live,
      stamp: statusStamp(statuses),
    };
  }

  /** The status now of every run the cached HTML of `rows` cites, in one query (a list of reports asks once). */
  async function citedRunStatuses(rows: readonly ReportRow[]): Promise<Map<string, string>> {
    const ids = [...new Set(rows.flatMap((row) => (row.content_html !== null ? row.cited_run_ids : [])))];
    const found: { id: string; status: string }[] =
      ids.length > 0 ? await db('speed_test_runs').whereIn('id', ids).select('id', 'status') : [];
    return new Map(found.map((run) => [run.id, run.status]));
  }

  /** The cached HTML while it is current (`statuses` from `citedRunStatuses`), else renders and stores it again. */
  async function contentHtml(row: ReportRow, statuses: ReadonlyMap<string, string>): Promise<string> {
    if (row.content_html !== null && row.renderer_version === REPORT_RENDERER_VERSION) {
      const fresh =
        !row.has_live_cards || (row.rendered_at !== null && clock.now().getTime() - row.rendered_at.getTime() < LIVE_CARD_TTL_MS);
      const cited = row.cited_run_ids.flatMap((id) => (statuses.has(id) ? [{ id, status: statuses.get(id)! }] : []));
      if (fresh && statusStamp(cited) === row.render_stamp) return row.content_html;
    }
    const rendered = await render(row.user_id, row.content);
    // Only over the version it was rendered from: an edit meanwhile keeps its own (newer) state.
    await db('model_reports').where({ id: row.id, updated_at: row.updated_at }).update(renderColumns(rendered));
    return rendered.html;
  }

  function renderColumns(rendered: Awaited<ReturnType<typeof render>>) {
    return {
      content_html: rendered.html,
      renderer_version: REPORT_RENDERER_VERSION,
      render_stamp: rendered.stamp,
      cited_run_ids: rendered.citedRunIds,
      has_live_cards: rendered.live,
      rendered_at: clock.now(),
    };
  }

  /** Reports as answered, their HTML current; the cited runs' statuses are read once for all of them. */
  async function toReports(rows: readonly JoinedRow[]): Promise<Report[]> {
    const statuses = await citedRunStatuses(rows);
    return Promise.all(rows.map((row) => toReport(row, statuses)));
  }

  const oneReport = async (row: JoinedRow): Promise<Report> => (await toReports([row]))[0]!;

  async function toReport(row: JoinedRow, statuses: ReadonlyMap<string, string>): Promise<Report> {
    return {
      id: row.id,
      title: row.title,
      summary: row.summary,
      contentFormat: row.content_format,
      content: row.content,
      tags: row.tags,
      benchmarkRunIds: row.benchmark_run_ids,
      evalRunIds: row.eval_run_ids,
      imageIds: row.image_ids,
      published: row.published,
      status: row.published ? 'published' : 'draft',
      unpublishedReason: row.unpublished_reason,
      author: { username: row.username, displayName: row.display_name },
      model: { hfId: row.hf_id, displayName: row.model_display_name },
      contentHtml: await contentHtml(row, statuses),
      createdAt: row.created_at.toISOString(),
      updatedAt: row.updated_at.toISOString(),
      publishedAt: row.published_at ? row.published_at.toISOString() : null,
    };
  }

  /**
   * Everything a write must pass beyond its schema: attached runs are approved runs of the
   * model's tree, listed images are the author's, the content's tokens stay within the limits.
   */
  async function checkReferences(
    trx: Db,
    authorId: string,
    model: Pick<ModelRow, 'id' | 'hf_id'>,
    fields: Partial<ReportCreateInput>,
  ): Promise<void> {
    const fieldErrors: Record<string, string[]> = {};
    const tree = fields.benchmarkRunIds?.length || fields.evalRunIds?.length ? await modelTreeIds(trx, model.id) : [];
    const checkRuns = async (field: 'benchmarkRunIds' | 'evalRunIds', table: string, what: string) => {
      const ids = fields[field] ?? [];
      if (ids.length === 0) return;
      const found = new Set(
        (await trx(table).whereIn('id', ids).where({ status: APPROVED }).whereIn('model_id', tree).select('id')).map(
          (row: { id: string }) => row.id,
        ),
      );
      ids.forEach((id, index) => {
        if (!found.has(id)) fieldErrors[`${field}.${index}`] = [messages.reportRunNotAttachable(what, model.hf_id)];
      });
    };
    await checkRuns('benchmarkRunIds', 'speed_test_runs', 'speed-test run');
    await checkRuns('evalRunIds', 'quality_runs', 'quality run');
    if (fields.imageIds?.length) {
      const own = await authorImages(authorId, fields.imageIds);
      fields.imageIds.forEach((id, index) => {
        if (!own.has(id)) fieldErrors[`imageIds.${index}`] = [messages.reportImageNotYours];
      });
    }
    if (fields.content !== undefined) {
      const parsed = parseReport(fields.content, { isOwnUrl: cards.isOwnUrl });
      const problems = [];
      if (parsed.imageIds.length > rules.imagesMax) problems.push(messages.reportTooManyTokens('image', rules.imagesMax));
      if (parsed.embedUrls.length > rules.embedsMax) problems.push(messages.reportTooManyTokens('embed', rules.embedsMax));
      if (problems.length) fieldErrors.content = problems;
    }
    if (Object.keys(fieldErrors).length > 0) throw new ValidationFailed({ fieldErrors, formErrors: [] });
  }

  async function findJoined(id: string): Promise<JoinedRow | undefined> {
    return joined().where('r.id', id).first();
  }

  /** The report as its reader may see it: a draft only by its author; anything else is a 404. */
  async function readable(id: string, viewerId: string | null): Promise<JoinedRow> {
    const row = await findJoined(id);
    if (!row || (!row.published && row.user_id !== viewerId)) throw new NotFound(messages.reportNotFound);
    return row;
  }

  return {
    /** POST /api/models/{org}/{model}/reports: the model must be catalogued or on the hub (then catalogued, as a submission does). */
    async create(authorId: string, hfId: string, input: ReportCreateInput): Promise<Report> {
      const resolved = await models.resolve(hfId);
      const write = async (trx: Db) => {
        // Serialises one author's creations so concurrent ones cannot overshoot the cap.
        await trx('users').where({ id: authorId }).forUpdate().first('id');
        const [{ reports }] = await trx('model_reports').where({ user_id: authorId }).count<{ reports: number }[]>('* as reports');
        if (Number(reports) >= REPORTS_PER_ACCOUNT)
          throw new ValidationFailed({ fieldErrors: {}, formErrors: [messages.reportLimit(REPORTS_PER_ACCOUNT)] });
        const model = await withTransaction(trx).models.catalogueIfNew(resolved);
        await checkReferences(trx, authorId, model, input);
        const now = clock.now();
        const [row] = await trx('model_reports')
          .insert({
            user_id: authorId,
            model_id: model.id,
            title: input.title,
            summary: input.summary,
            content_format: input.contentFormat,
            content: input.content,
            tags: input.tags,
            benchmark_run_ids: input.benchmarkRunIds,
            eval_run_ids: input.evalRunIds,
            image_ids: input.imageIds,
            published: input.published,
            published_at: input.published ? now : null,
            created_at: now,
            updated_at: now,
          })
          .returning('id');
        return row.id as string;
      };
      // A model new to the catalogue is a write the reads show (its tree, the finetunes it adopts).
      const id = 'catalogued' in resolved ? await db.transaction(write) : await writeVisibly(deps, write);
      return oneReport((await findJoined(id))!);
    },

    /** PATCH /api/reports/{id}: the author changes the fields given. */
    async update(authorId: string, id: string, patch: ReportPatchInput): Promise<Report> {
      await db.transaction(async (trx) => {
        const row: ReportRow | undefined = await trx('model_reports').where({ id, user_id: authorId }).forUpdate().first();
        if (!row) throw new NotFound(messages.reportNotFound);
        if (patch.published === true && row.unpublished_reason !== null)
          throw new Conflict(messages.reportUnpublishedByAdmin(row.unpublished_reason));
        const model = await trx('models').where({ id: row.model_id }).first('id', 'hf_id');
        await checkReferences(trx, authorId, model, patch);
        const now = clock.now();
        const columns: Record<string, unknown> = { updated_at: now };
        const names = {
          title: 'title',
          summary: 'summary',
          contentFormat: 'content_format',
          content: 'content',
          tags: 'tags',
          benchmarkRunIds: 'benchmark_run_ids',
          evalRunIds: 'eval_run_ids',
          imageIds: 'image_ids',
          published: 'published',
        } as const;
        for (const [field, column] of Object.entries(names)) {
          const value = patch[field as keyof typeof names];
          if (value !== undefined) columns[column] = value;
        }
        if (Object.keys(columns).length === 1) return;
        if (patch.published === true && !row.published_at) columns.published_at = now;
        // New content renders on the next read.
        if (patch.content !== undefined) columns.content_html = null;
        await trx('model_reports').where({ id }).update(columns);
      });
      return oneReport((await findJoined(id))!);
    },

    async get(id: string, viewerId: string | null): Promise<Report> {
      return oneReport(await readable(id, viewerId));
    },

    /** The reader's page: the report, its outline and its attached runs that are still approved. */
    async page(id: string, viewerId: string | null) {
      const row = await readable(id, viewerId);
      const report = await oneReport(row);
      const [benchmarkRuns, evalRuns] = await Promise.all([attachedSpeedTests(row.benchmark_run_ids), attachedEvalRuns(row.eval_run_ids)]);
      return {
        report,
        headings: parseReport(row.content).headings as ReportHeading[],
        benchmarkRuns,
        evalRuns,
        isAuthor: row.user_id === viewerId,
      };
    },

    /** DELETE /api/reports/{id}: the author's only. */
    async remove(authorId: string, id: string): Promise<void> {
      const deleted = await db('model_reports').where({ id, user_id: authorId }).delete();
      if (deleted === 0) throw new NotFound(messages.reportNotFound);
    },

    /** Published reports of a catalogued model, newest first. */
    async listForModel(hfId: string, page: { limit: number; offset: number }): Promise<ReportPage> {
      const model = await models.findByHfId(hfId);
      if (!model) throw new NotFound(messages.modelNotCatalogued(hfId));
      const base = db('model_reports').where({ model_id: model.id, published: true });
      const [rows, [{ total }]] = await Promise.all([
        joined()
          .where({ 'r.model_id': model.id, 'r.published': true })
          .orderBy([
            { column: 'r.published_at', order: 'desc' },
            { column: 'r.id', order: 'desc' },
          ])
          .limit(page.limit)
          .offset(page.offset),
        base.count<{ total: number }[]>('* as total'),
      ]);
      return { reports: await toReports(rows), total: Number(total), limit: page.limit, offset: page.offset };
    },

    /** The newest published reports of a model for its page's section: titles and summaries, no HTML rendered. */
    async latestForModel(modelId: string, limit: number) {
      const [rows, [{ total }]] = await Promise.all([
        joined()
          .where({ 'r.model_id': modelId, 'r.published': true })
          .orderBy([
            { column: 'r.published_at', order: 'desc' },
            { column: 'r.id', order: 'desc' },
          ])
          .limit(limit),
        db('model_reports').where({ model_id: modelId, published: true }).count<{ total: number }[]>('* as total'),
      ]);
      const reports = (rows as JoinedRow[]).map((row) => ({
        id: row.id,
        title: row.title,
        summary: row.summary,
        tags: row.tags,
        author: { username: row.username },
        publishedAt: row.published_at ? row.published_at.toISOString() : null,
      }));
      return { reports, total: Number(total) };
    },

    /** The author's reports, drafts included, most recently changed first (no HTML: a list). */
    async listOwn(authorId: string) {
      const rows: JoinedRow[] = await joined()
        .where('r.user_id', authorId)
        .orderBy([
          { column: 'r.updated_at', order: 'desc' },
          { column: 'r.id', order: 'desc' },
        ]);
      return rows.map((row) => ({
        id: row.id,
        title: row.title,
        published: row.published,
        unpublishedReason: row.unpublished_reason,
        modelHfId: row.hf_id,
        updatedAt: row.updated_at.toISOString(),
      }));
    },

    /** The editor's live preview: the same renderer, with the author's images and the live cards. */
    async preview(authorId: string, content: string): Promise<string> {
      return (await render(authorId, content)).html;
    },

    /** The editor's run picker: approved runs of the model's tree, fastest first, and quality runs by score. */
    async attachableRuns(hfId: string) {
      const model = await models.findByHfId(hfId);
      if (!model) return { speedTests: [], evalRuns: [] };
      const tree = await modelTreeIds(db, model.id);
      const speedTests: SpeedTestRun[] = (
        await reads
          .withDocuments()
          .select(reads.documentColumns(null))
          .whereIn('r.model_id', tree)
          .where('r.status', APPROVED)
          .orderByRaw('r.tok_s_out desc nulls last, r.id')
          .limit(100)
      ).map((doc: { document: string }) => JSON.parse(doc.document) as SpeedTestRun);
      const evalRuns = await evalRunsWhere((q) => q.whereIn('q.model_id', tree).orderBy('q.score', 'desc').limit(100));
      return { speedTests, evalRuns };
    },

    /**
     * POST /api/reports/{id}/images: stores an upload (already checked and re-encoded) as the
     * author's image and lists it on that report (`imageIds`), within the report's image limit.
     */
    async attachImage(authorId: string, reportId: string, image: ProcessedImage, caption: string | null = null): Promise<StoredImage> {
      return db.transaction(async (trx) => {
        const row: ReportRow | undefined = await trx('model_reports').where({ id: reportId, user_id: authorId }).forUpdate().first();
        if (!row) throw new NotFound(messages.reportNotFound);
        if (row.image_ids.length >= rules.imagesMax) throw new Conflict(messages.reportImagesFull(rules.imagesMax));
        const stored = await withTransaction(trx).images.store(authorId, 'report', image, caption);
        await trx('model_reports')
          .where({ id: reportId })
          .update({ image_ids: [...row.image_ids, stored.id], updated_at: clock.now() });
        return stored;
      });
    },

    /**
     * DELETE /api/reports/{id}/images/{imageId}: the image leaves the report and is deleted; a
     * token naming it in the content then stays text. Unknown report, image or author: 404.
     */
    async detachImage(authorId: string, reportId: string, imageId: string): Promise<void> {
      await db.transaction(async (trx) => {
        const row: ReportRow | undefined = await trx('model_reports').where({ id: reportId, user_id: authorId }).forUpdate().first();
        if (!row?.image_ids.includes(imageId)) throw new NotFound(messages.reportImageNotFound);
        // The content may name the image: its HTML renders again on the next read.
        await trx('model_reports')
          .where({ id: reportId })
          .update({ image_ids: row.image_ids.filter((id) => id !== imageId), content_html: null, updated_at: clock.now() });
        await withTransaction(trx).images.remove([imageId]);
      });
    },

    /** POST /api/reports/images: stores an upload (already checked and re-encoded) as the author's report image. */
    async storeImage(authorId: string, image: ProcessedImage, caption: string | null = null): Promise<StoredImage> {
      return images.store(authorId, 'report', image, caption);
    },

    /** Admin: unpublishes a report with a reason, audited in the same transaction. */
    async unpublish(admin: AdminActor, id: string, reason: string): Promise<void> {
      await db.transaction(async (trx) => {
        const row: ReportRow | undefined = await trx('model_reports').where({ id }).forUpdate().first();
        if (!row) throw new NotFound(messages.reportNotFound);
        await trx('model_reports').where({ id }).update({ published: false, unpublished_reason: reason, unpublished_at: clock.now() });
        await withTransaction(trx).audit.record(admin, {
          action: 'report.unpublish',
          targetKind: 'model_report',
          targetId: id,
          targetLabel: row.title,
          reason,
        });
      });
    },
  };

  async function attachedSpeedTests(ids: readonly string[]): Promise<SpeedTestRun[]> {
    if (ids.length === 0) return [];
    const runs = await reads.find((q) => q.whereIn('r.id', ids).where('r.status', APPROVED));
    return ids.flatMap((id) => runs.filter((run) => run.id === id));
  }

  async function attachedEvalRuns(ids: readonly string[]): Promise<AttachedEvalRun[]> {
    if (ids.length === 0) return [];
    const runs = await evalRunsWhere((q) => q.whereIn('q.id', ids));
    return ids.flatMap((id) => runs.filter((run) => run.id === id));
  }

  async function evalRunsWhere(filter: (q: ReturnType<Db>) => void): Promise<AttachedEvalRun[]> {
    const rows = await db('quality_runs as q')
      .join('quality_suites as s', 's.id', 'q.suite_id')
      .join('models as m', 'm.id', 'q.model_id')
      .where('q.status', APPROVED)
      .modify(filter)
      .select('q.id', 's.slug', 's.name', 'q.score', 'q.quantization', 'm.hf_id');
    return rows.map((row: { id: string; slug: string; name: string; score: number; quantization: string | null; hf_id: string }) => ({
      id: row.id,
      suiteSlug: row.slug,
      suiteName: row.name,
      score: row.score,
      quantization: row.quantization,
      modelHfId: row.hf_id,
    }));
  }
}
