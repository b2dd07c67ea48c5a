import type { RevisionProfile } from '../revisions.ts';
import { bestByHardwareChart } from '../runs/presentation/charts.ts';
import { leaderboardPageView } from '../runs/presentation/leaderboard-view.ts';
import type { ReportCardContent, ReportCardRenderer } from '../services/report-cards.service.ts';
import { createViewEngine, helpers } from './views.ts';

/**
 * The HTML of report cards, from `views/partials/reports/cards/<kind>.eta`. Rendered outside
 * a request (a report's HTML is cached and answered by the API too), so links are paths of
 * this service and every value is escaped by the templates.
 */
const eta = createViewEngine(process.env.NODE_ENV === 'production');

/** What a card's template reads besides its content: a model card's bar chart is drawn here, with the pages' charts. */
function drawn(content: ReportCardContent): Record<string, unknown> {
  if (content.kind !== 'model') return {};
  return { chart: content.bestByHardware.length > 0 ? bestByHardwareChart(content.bestByHardware, content.model.displayName) : '' };
}

/** The renderer the wiring hands to the report services: a leaderboard address read as its page reads it, and the cards' HTML. */
export function createReportCardRenderer(profile: RevisionProfile): ReportCardRenderer {
  return {
    leaderboardApiParams: (params) => leaderboardPageView(profile, params).apiParams,
    render: (url, content) =>
      eta.render(`partials/reports/cards/${content.kind}`, { url, ...content, ...drawn(content), h: helpers }).trim(),
  };
}
