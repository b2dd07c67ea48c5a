import type { StoredImage } from '../services/images.service.ts';
import type { Report, ReportPage } from '../services/reports.service.ts';
import { imageJson } from './images.ts';
import { absoluteUrl, userPagePath } from './origin.ts';

/** A report as the API answers it (`Report`): absolute URLs of its author's page, its model's page and its own page. */
export function reportJson(report: Report, origin: string) {
  return {
    id: report.id,
    title: report.title,
    summary: report.summary,
    contentFormat: report.contentFormat,
    content: report.content,
    tags: report.tags,
    benchmarkRunIds: report.benchmarkRunIds,
    evalRunIds: report.evalRunIds,
    imageIds: report.imageIds,
    published: report.published,
    status: report.status,
    unpublishedReason: report.unpublishedReason,
    author: {
      username: report.author.username,
      displayName: report.author.displayName,
      profileUrl: absoluteUrl(origin, userPagePath(report.author.username)),
    },
    model: { hfId: report.model.hfId, displayName: report.model.displayName, url: absoluteUrl(origin, `/models/${report.model.hfId}`) },
    url: absoluteUrl(origin, `/reports/${report.id}`),
    // Cached on the row for every reader: its links and image sources are paths, never absolute.
    contentHtml: report.contentHtml,
    createdAt: report.createdAt,
    updatedAt: report.updatedAt,
    publishedAt: report.publishedAt,
  };
}

/** A page of a model's reports (`ReportList`). */
export function reportListJson(page: ReportPage, origin: string) {
  return { reports: page.reports.map((report) => reportJson(report, origin)), total: page.total, limit: page.limit, offset: page.offset };
}

/** An uploaded report image (`ReportImage`): the same addresses as a listing's photo. */
export const reportImageJson = (image: StoredImage, origin: string) => ({ ...imageJson(image, origin), caption: image.caption });
