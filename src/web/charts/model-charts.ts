import { formatNumber, hardwareLabel, notStated, streamsLabel } from '../../lib/labels.ts';
import { bestByHardwareChart, speedVersusMemoryChart } from './speed-test-charts.ts';
import { scatterChart } from './svg-charts.ts';

/** A run as the API returns it; the charts read its speeds, depth, hardware and model. */
type ChartRun = Record<string, any> & { id: string };

/** "Dense 7B on RTX 4090: 120 tok/s (×4 streams, aggregate)", the hover text of a point. */
function pointLabel(run: ChartRun, figures: string): string {
  const streams = streamsLabel(run);
  const model = run.model?.displayName ? `${run.model.displayName} · ` : '';
  return `${model}${hardwareLabel(run.hardware)}: ${figures}${streams ? ` (${streams}, aggregate)` : ''}`;
}

/** Each hardware profile's first run in `runs` (given fastest first): its best. */
function bestPerHardware(runs: readonly ChartRun[]): ChartRun[] {
  const seen = new Set<unknown>();
  return runs.filter((run) => !seen.has(run.hardwareId) && seen.add(run.hardwareId));
}

/** Prefill (prompt processing) against decode (output) speed: one point per run stating both. */
export function prefillVersusDecodeChart(runs: readonly ChartRun[], subject: string): string {
  return scatterChart({
    title: `Prefill against decode speed: ${subject}`,
    description: `Each point is one run of ${subject} that reported both speeds: prefill (prompt processing) tok/s across on a log scale, output (decode) tok/s up. Runs above the decode-speed bound are marked suspect.`,
    xLabel: 'prefill tok/s (log)',
    yLabel: 'output tok/s',
    xLog: true,
    data: runs.flatMap((run) =>
      typeof run.tokSOut === 'number' && typeof run.tokSPrefill === 'number'
        ? [{ x: run.tokSPrefill, y: run.tokSOut, label: pointLabel(run, `${formatNumber(run.tokSPrefill, 0)} prefill, ${formatNumber(run.tokSOut, 1)} output tok/s`), href: `/runs/${run.id}`, suspect: run.plausibility === 'suspect' }]
        : [],
    ),
  });
}

/**
 * Output speed against context depth: the tokens already in the context when decoding was
 * measured (`prefillTokens`). Runs that did not state a depth are left out (their stored 0 is
 * the spec's default, not a measurement).
 */
export function speedVersusContextDepthChart(runs: readonly ChartRun[], subject: string): string {
  return scatterChart({
    title: `Output speed against context depth: ${subject}`,
    description: `Each point is one run of ${subject} that stated its context depth: tokens already in the context (prefillTokens) across, output tok/s up. Runs that did not state a depth are left out.`,
    xLabel: 'context depth (tokens already cached)',
    yLabel: 'output tok/s',
    data: runs.flatMap((run) =>
      typeof run.tokSOut === 'number' && typeof run.prefillTokens === 'number' && !notStated(run, 'prefillTokens')
        ? [{ x: run.prefillTokens, y: run.tokSOut, label: pointLabel(run, `${formatNumber(run.tokSOut, 1)} tok/s at ${formatNumber(run.prefillTokens, 0)} tokens deep`), href: `/runs/${run.id}`, suspect: run.plausibility === 'suspect' }]
        : [],
    ),
  });
}

/** A model page's charts, all drawn from the same runs (its scope's fastest, fastest first). */
export function modelCharts(runs: readonly ChartRun[], subject: string) {
  return {
    bars: bestByHardwareChart(bestPerHardware(runs), subject),
    scatter: speedVersusMemoryChart(runs, subject),
    prefillDecode: prefillVersusDecodeChart(runs, subject),
    contextDepth: speedVersusContextDepthChart(runs, subject),
  };
}
