import { NotFound } from '../lib/errors.ts';
import type { ServiceDeps } from './deps.ts';
import { leaderboardQuerySchema } from '../runs/reads/leaderboard-query.schema.ts';
import type { LeaderboardService } from '../runs/reads/leaderboard.service.ts';
import { leaderboardRuns } from '../runs/run-json.ts';
import type { ModelsService } from './models.service.ts';
import type { SpeedTestReads, SpeedTestRun } from '../runs/reads/speed-test-reads.ts';

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

/** What a card shows, by kind: the facts its template (views/partials/reports/cards/<kind>.eta) reads. */
export type ReportCardContent =
  | { kind: 'run'; run: SpeedTestRun }
  | { kind: 'leaderboard'; runs: SpeedTestRun[]; filters: string[] }
  | {
      kind: 'model';
      model: Awaited<ReturnType<ModelsService['detail']>>;
      byClass: Record<string, unknown>[];
      bestByHardware: SpeedTestRun[];
    }
  | { kind: 'hardware'; hardware: unknown; runs: SpeedTestRun[] }
  | { kind: 'gone'; what: string }
  | { kind: 'link'; host: string };

/**
 * What cards take from the pages: how a leaderboard address reads, and a card's HTML. Built in
 * the web layer (src/web/report-cards.ts) and handed in by the wiring, so no service imports it.
 */
export interface ReportCardRenderer {
  /** The leaderboard query a page address's parameters stand for, read as the page reads them (its default view). */
  leaderboardApiParams(params: Record<string, unknown>): Record<string, unknown>;
  /** The card's HTML; `url` is the embedded address it links to. */
  render(url: string, content: ReportCardContent): string;
}

/**
 * What the report services need besides the usual deps: the service's own origin (PUBLIC_URL,
 * and whether it was configured) and the card renderer.
 */
export type ReportDeps = ServiceDeps & { publicUrl: string; publicUrlConfigured: boolean; reportCardRenderer: ReportCardRenderer };

/** Host names of this machine: without PUBLIC_URL the service answers on them at any port (the agent-context's base URL). */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

export function createReportCardsService(
  deps: Pick<ReportDeps, 'db' | 'profile' | 'publicUrl' | 'publicUrlConfigured' | 'reportCardRenderer'> & {
    leaderboard: LeaderboardService;
    models: ModelsService;
    reads: SpeedTestReads;
  },
) {
  const { db, profile, publicUrl, reportCardRenderer: renderer, leaderboard, models, reads } = deps;
  const ownOrigin = new URL(publicUrl).origin;

  /**
   * Whether an address is a page of this service: PUBLIC_URL's origin; without PUBLIC_URL
   * (development) also this machine's loopback names at any port, which is what the
   * agent-context gives as its base URL when asked at http://127.0.0.1:<port>.
   */
  function isOwnUrl(url: URL): boolean {
    if (url.origin === ownOrigin) return true;
    return !deps.publicUrlConfigured && (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_HOSTS.has(url.hostname);
  }

  const card = (url: URL, content: ReportCardContent, runs: readonly { id: string }[], live: boolean): ReportCard => ({
    html: renderer.render(url.href, content),
    citedRunIds: runs.map((run) => run.id),
    live,
  });
  const linkCard = (url: URL) => card(url, { kind: 'link', host: url.host }, [], false);

  async function runCard(url: URL, id: string): Promise<ReportCard | null> {
    const row = await db('speed_test_runs').where({ id }).first('status');
    if (!row) return null;
    if (row.status !== 'APPROVED') return card(url, { kind: 'gone', what: 'This run' }, [{ id }], false);
    const [run] = await reads.find((q) => q.where('r.id', id));
    return card(url, { kind: 'run', run: run! }, [{ id }], false);
  }

  async function leaderboardCard(url: URL): Promise<ReportCard | null> {
    const params: Record<string, unknown> = {};
    for (const key of new Set(url.searchParams.keys())) {
      if (['limit', 'offset', 'format'].includes(key)) continue;
      const values = url.searchParams.getAll(key).filter((value) => value !== '');
      if (values.length > 0) params[key] = values.length === 1 ? values[0] : values;
    }
    const parsed = leaderboardQuerySchema(profile).safeParse({
      ...renderer.leaderboardApiParams(params),
      ...(await models.readModelBox(params))?.query,
      limit: String(TOP_RUNS),
      offset: '0',
    });
    if (!parsed.success) return null;
    const page = leaderboardRuns(profile, await leaderboard.page(parsed.data, { withTotal: true }));
    const filters = Object.entries(params).map(([key, value]) => `${key}=${String(value)}`);
    return card(url, { kind: 'leaderboard', runs: page, filters }, page, true);
  }

  async function modelCard(url: URL, hfId: string): Promise<ReportCard | null> {
    let model;
    try {
      model = await models.detail(hfId);
    } catch (error) {
      if (error instanceof NotFound) return null;
      throw error;
    }
    // Single-stream, as the model's page and the leaderboard show by default (where the revision has the filter).
    const singleStream = profile.speedTests.leaderboard.extendedFilters ? { batchSize: 1 } : {};
    const [best, figures] = await Promise.all([
      leaderboard.page(
        { hfId: model.hfId, sort: 'tokSOut', format: 'json', offset: 0, bestPer: 'hardware', limit: CHART_BARS, ...singleStream },
        { withTotal: false },
      ),
      models.scopeFigures(model, 'model'),
    ]);
    const byClass = Object.entries(figures.singleStreamByHardwareClass)
      .filter(([, figures]) => figures.runs > 0)
      .map(([hwClass, figures]) => ({ hwClass, ...figures }));
    const bestByHardware = leaderboardRuns(profile, best);
    return card(url, { kind: 'model', model, byClass, bestByHardware }, bestByHardware, true);
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
    return card(url, { kind: 'hardware', hardware: row.details, runs }, runs, true);
  }

  /** The card of one embed address, or null when it gets none (it stays a plain link in the text). */
  async function cardOf(url: URL): Promise<ReportCard | null> {
    if (isOwnUrl(url)) {
      const segments = url.pathname
        .split('/')
        .slice(1)
        .map((segment) => decodeURIComponent(segment));
      const [first, second, third] = segments;
      if (segments.length === 2 && first === 'runs' && UUID.test(second!))
        return (await runCard(url, second!.toLowerCase())) ?? linkCard(url);
      if (segments.length === 2 && first === 'hardware' && UUID.test(second!))
        return (await hardwareCard(url, second!.toLowerCase())) ?? linkCard(url);
      if (segments.length === 3 && first === 'models' && second && third)
        return (await modelCard(url, `${second}/${third}`)) ?? linkCard(url);
      if (url.pathname === '/' || url.pathname === '/api/leaderboard') return (await leaderboardCard(url)) ?? linkCard(url);
      return linkCard(url);
    }
    if (url.protocol === 'https:') return linkCard(url);
    return null;
  }

  return {
    isOwnUrl,
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
