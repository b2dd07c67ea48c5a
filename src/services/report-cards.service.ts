import { NotFound } from '../lib/errors.ts';
import { leaderboardQuerySchema } from '../runs/reads/leaderboard-query.schema.ts';
import { bestByHardwareChart } from '../runs/presentation/charts.ts';
import { leaderboardPageView } from '../runs/presentation/leaderboard-view.ts';
import { renderReportCard, type ReportCardKind } from '../web/report-cards.ts';
import type { ServiceDeps } from './deps.ts';
import { createLeaderboardService } from '../runs/reads/leaderboard.service.ts';
import { leaderboardRuns } from '../runs/run-json.ts';
import { createModelsService } from './models.service.ts';
import { createSpeedTestReads, type SpeedTestRun } from '../runs/reads/speed-test-reads.ts';

/**
 * The live cards of a report's embed tokens. An address of this service (its PUBLIC_URL
 * origin) becomes a card of what that page shows: a run, the top five of a leaderboard with
 * its filters, a model's best runs by hardware class with a bar chart, a hardware profile's
 * best runs. Another https address becomes a plain link card; never an iframe.
 *
 * Each card names the runs it cites, so the report's cached HTML is rebuilt when one of them
 * changes status; cards of aggregate pages are "live" (their top runs move as runs arrive)
 * and age out of the cache on their own (see reports.service).
 */

const TOP_RUNS = 5;
const CHART_BARS = 10;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface ReportCard {
  html: string;
  citedRunIds: string[];
  live: boolean;
}

export interface ReportCards {
  cards: Map<string, string>;
  citedRunIds: string[];
  live: boolean;
}

/** What the report services need besides the usual deps: the service's own origin (PUBLIC_URL). */
export type ReportDeps = ServiceDeps & { publicUrl: string };

export function createReportCardsService(deps: ReportDeps) {
  const { db, profile, publicUrl } = deps;
  const ownOrigin = new URL(publicUrl).origin;
  const leaderboard = createLeaderboardService(deps);
  const models = createModelsService(deps);
  const reads = createSpeedTestReads(deps);

  const card = (kind: ReportCardKind, url: URL, data: Record<string, unknown>, runs: readonly { id: string }[], live: boolean): ReportCard => ({
    html: renderReportCard(kind, { url: url.href, ...data }),
    citedRunIds: runs.map((run) => run.id),
    live,
  });

  async function runCard(url: URL, id: string): Promise<ReportCard | null> {
    const row = await db('speed_test_runs').where({ id }).first('status');
    if (!row) return null;
    if (row.status !== 'APPROVED') return card('gone', url, { what: 'This run' }, [{ id }], false);
    const [run] = await reads.find((q) => q.where('r.id', id));
    return card('run', url, { run }, [{ id }], false);
  }

  async function leaderboardCard(url: URL): Promise<ReportCard | null> {
    const params: Record<string, unknown> = {};
    for (const key of new Set(url.searchParams.keys())) {
      if (['limit', 'offset', 'format'].includes(key)) continue;
      const values = url.searchParams.getAll(key).filter((value) => value !== '');
      if (values.length > 0) params[key] = values.length === 1 ? values[0] : values;
    }
    const { apiParams } = leaderboardPageView(profile, params);
    const parsed = leaderboardQuerySchema(profile).safeParse({ ...apiParams, limit: String(TOP_RUNS), offset: '0' });
    if (!parsed.success) return null;
    const page = leaderboardRuns(profile, await leaderboard.page(parsed.data, { withTotal: true }));
    const filters = Object.entries(params).map(([key, value]) => `${key}=${String(value)}`);
    return card('leaderboard', url, { runs: page, filters }, page, true);
  }

  async function modelCard(url: URL, hfId: string): Promise<ReportCard | null> {
    let model;
    try {
      model = await models.detail(hfId);
    } catch (error) {
      if (error instanceof NotFound) return null;
      throw error;
    }
    const best = leaderboardRuns(profile, await leaderboard.page({ hfId: model.hfId, sort: 'tokSOut', format: 'json', offset: 0, bestPer: 'hardware', limit: CHART_BARS }, { withTotal: false }));
    const byClass = Object.entries(model.summary.byHardwareClass).map(([hwClass, figures]) => ({ hwClass, ...figures }));
    return card('model', url, { model, byClass, chart: best.length > 0 ? bestByHardwareChart(best, model.displayName) : '' }, best, true);
  }

  async function hardwareCard(url: URL, id: string): Promise<ReportCard | null> {
    const row = await db('hardware_profiles').where({ id }).first('details');
    if (!row) return null;
    const runs: SpeedTestRun[] = (
      await reads
        .withDocuments()
        .select(reads.documentColumns(null))
        .where({ 'r.hardware_id': id, 'r.status': 'APPROVED' })
        .orderByRaw('r.tok_s_out desc nulls last, r.id')
        .limit(TOP_RUNS)
    ).map((doc: { document: string }) => JSON.parse(doc.document) as SpeedTestRun);
    return card('hardware', url, { hardware: row.details, runs }, runs, true);
  }

  /** The card of one embed address, or null when it gets none (it stays a plain link in the text). */
  async function cardOf(url: URL): Promise<ReportCard | null> {
    if (url.origin === ownOrigin) {
      const segments = url.pathname.split('/').slice(1).map((segment) => decodeURIComponent(segment));
      const [first, second, third] = segments;
      if (segments.length === 2 && first === 'runs' && UUID.test(second!)) return (await runCard(url, second!.toLowerCase())) ?? card('link', url, { host: url.host }, [], false);
      if (segments.length === 2 && first === 'hardware' && UUID.test(second!)) return (await hardwareCard(url, second!.toLowerCase())) ?? card('link', url, { host: url.host }, [], false);
      if (segments.length === 3 && first === 'models' && second && third) return (await modelCard(url, `${second}/${third}`)) ?? card('link', url, { host: url.host }, [], false);
      if (url.pathname === '/' || url.pathname === '/api/leaderboard') return (await leaderboardCard(url)) ?? card('link', url, { host: url.host }, [], false);
      return card('link', url, { host: url.host }, [], false);
    }
    if (url.protocol === 'https:') return card('link', url, { host: url.host }, [], false);
    return null;
  }

  return {
    /** The cards of a report's embed addresses (as `parseReport` lists them). */
    async resolve(urls: readonly string[]): Promise<ReportCards> {
      const cards = new Map<string, string>();
      const cited = new Set<string>();
      let live = false;
      for (const address of urls) {
        let resolved: ReportCard | null;
        try {
          resolved = await cardOf(new URL(address));
        } catch (error) {
          // A path segment with broken percent-encoding names no page of ours.
          if (!(error instanceof URIError)) throw error;
          resolved = null;
        }
        if (!resolved) continue;
        cards.set(address, resolved.html);
        for (const id of resolved.citedRunIds) cited.add(id);
        live ||= resolved.live;
      }
      return { cards, citedRunIds: [...cited], live };
    },
  };
}

export type ReportCardsService = ReturnType<typeof createReportCardsService>;
