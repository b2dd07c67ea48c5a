import { createViewEngine, helpers } from './views.ts';

/**
 * The HTML of report cards, from `views/partials/reports/cards/<kind>.eta`. Rendered outside
 * a request (a report's HTML is cached and answered by the API too), so links are paths of
 * this service and every value is escaped by the templates.
 */
const eta = createViewEngine(process.env.NODE_ENV === 'production');

export type ReportCardKind = 'run' | 'leaderboard' | 'model' | 'hardware' | 'gone' | 'link';

export function renderReportCard(kind: ReportCardKind, data: Record<string, unknown>): string {
  return eta.render(`partials/reports/cards/${kind}`, { ...data, h: helpers }).trim();
}
