import { formatNumber, hardwareLabel, notStated, streamsLabel } from '../../lib/labels.ts';
import { bestByHardwareChart, HW_CLASS_SERIES, speedVersusMemoryChart } from '../../runs/presentation/charts.ts';
import { DEFAULT_WIDTH, NARROW_WIDTH, responsiveChart, scatterChart, type PointDatum } from './svg-charts.ts';

/** A run as the API returns it; the charts read its speeds, depth, hardware and model. */
type ChartRun = Record<string, any> & { id: string };

/** Leading points named beside them: fewer on a phone, where labels would crowd. */
const directLabels = (width: number) => (width <= NARROW_WIDTH ? 3 : 5);

/** A run as a point of a model scatter: coloured and shaped by hardware class, its hardware named when it leads. */
function runPoint(run: ChartRun, x: number, figures: string): PointDatum {
  const streams = streamsLabel(run);
  const model = run.model?.displayName ? `${run.model.displayName} · ` : '';
  return {
    x,
    y: run.tokSOut,
    label: `${model}${hardwareLabel(run.hardware)}: ${figures}${streams ? ` (${streams}, aggregate)` : ''}`,
    shortLabel: `${hardwareLabel(run.hardware).split(' · ')[0]} ${formatNumber(run.tokSOut, 0)}`,
    href: `/runs/${run.id}`,
    suspect: run.plausibility === 'suspect',
    series: run.hardware?.hwClass,
  };
}

/** The same chart for wide screens and for phones (re-laid out at the phone's width, not scaled down). */
const bothWidths = (draw: (width: number) => string) => responsiveChart(draw(DEFAULT_WIDTH), draw(NARROW_WIDTH));

/** Each hardware profile's first run in `runs` (given fastest first): its best. */
function bestPerHardware(runs: readonly ChartRun[]): ChartRun[] {
  const seen = new Set<unknown>();
  return runs.filter((run) => !seen.has(run.hardwareId) && seen.add(run.hardwareId));
}

/** Prefill (prompt processing) against decode (output) speed: one point per run stating both. */
export function prefillVersusDecodeChart(runs: readonly ChartRun[], subject: string, width = DEFAULT_WIDTH): string {
  return scatterChart({
    title: `Prefill against decode speed: ${subject}`,
    description: `Each point is one run of ${subject} that reported both speeds: prefill (prompt processing) tok/s across on a log scale, output (decode) tok/s up, coloured and shaped by hardware class. Runs above the decode-speed bound are drawn hollow.`,
    xLabel: 'prefill tok/s',
    yLabel: 'output tok/s',
    xLog: true,
    width,
    height: width <= NARROW_WIDTH ? 320 : undefined,
    series: HW_CLASS_SERIES,
    directLabels: directLabels(width),
    data: runs.flatMap((run) =>
      typeof run.tokSOut === 'number' && typeof run.tokSPrefill === 'number'
        ? [runPoint(run, run.tokSPrefill, `${formatNumber(run.tokSPrefill, 0)} prefill, ${formatNumber(run.tokSOut, 1)} output tok/s`)]
        : [],
    ),
  });
}

/**
 * Output speed against context depth: the tokens already in the context when decoding was
 * measured (`prefillTokens`). Runs that did not state a depth are left out (their stored 0 is
 * the spec's default, not a measurement).
 */
export function speedVersusContextDepthChart(runs: readonly ChartRun[], subject: string, width = DEFAULT_WIDTH): string {
  return scatterChart({
    title: `Output speed against context depth: ${subject}`,
    description: `Each point is one run of ${subject} that stated its context depth: tokens already in the context (prefillTokens) across, output tok/s up, coloured and shaped by hardware class. Runs that did not state a depth are left out.`,
    xLabel: 'context depth (tokens cached)',
    yLabel: 'output tok/s',
    width,
    height: width <= NARROW_WIDTH ? 320 : undefined,
    series: HW_CLASS_SERIES,
    directLabels: directLabels(width),
    data: runs.flatMap((run) =>
      statesDepth(run)
        ? [runPoint(run, run.prefillTokens, `${formatNumber(run.tokSOut, 1)} tok/s at ${formatNumber(run.prefillTokens, 0)} tokens deep`)]
        : [],
    ),
  });
}

/** A run the depth chart can place: its output tok/s and a context depth it stated. */
function statesDepth(run: ChartRun): run is ChartRun & { tokSOut: number; prefillTokens: number } {
  return typeof run.tokSOut === 'number' && typeof run.prefillTokens === 'number' && !notStated(run, 'prefillTokens');
}

/** A model page's charts, all drawn from the same runs (its scope's fastest, fastest first), each for wide screens and phones. */
export function modelCharts(runs: readonly ChartRun[], subject: string) {
  const best = bestPerHardware(runs);
  return {
    bars: bothWidths((width) => bestByHardwareChart(best, subject, width)),
    scatter: bothWidths((width) => speedVersusMemoryChart(runs, subject, width)),
    prefillDecode: bothWidths((width) => prefillVersusDecodeChart(runs, subject, width)),
    // Not drawn when no run stated a depth: the page says so instead of an empty chart.
    contextDepth: runs.some(statesDepth) ? bothWidths((width) => speedVersusContextDepthChart(runs, subject, width)) : null,
  };
}
