import { hwClasses } from '../../constants.ts';
import { formatNumber, hardwareLabel, hwClassLabel, shortHardwareLabel, streamsLabel } from '../../lib/labels.ts';
import {
  DEFAULT_WIDTH,
  horizontalBarChart,
  NARROW_WIDTH,
  responsiveChart,
  scatterChart,
  type ScatterSeries,
} from '../../web/charts/svg-charts.ts';

/** A run as the API returns it; the charts read its speed, hardware, engine and model. */
type ChartRun = Record<string, any> & { id: string };

const memoryOf = (hw: Record<string, any>): number | undefined => hw.totalVramGb ?? hw.unifiedMemoryGb ?? hw.ramGb;

/** The hardware classes as scatter series, in legend order: what run scatters colour and shape their points by. */
export const HW_CLASS_SERIES: readonly ScatterSeries[] = hwClasses.map((key) => ({ key, label: hwClassLabel(key) }));

/** Leading points labelled beside them in run scatters. */
const DIRECT_LABELS = 5;

/** A hardware name for labels beside points and above bars: without makers' names and memory ("4× RTX 3090"). */
const shortHardwareName = (hardware: Record<string, any>) => shortHardwareLabel(hardware as never).split(' · ')[0]!;

/** The bar of one run: hardware, with engine, quantization and streams under it. */
const runBar = (run: ChartRun, label = hardwareLabel(run.hardware)) => ({
  label,
  value: run.tokSOut as number,
  href: `/runs/${run.id}`,
  note: [run.engineName, run.quantization, streamsLabel(run)].filter(Boolean).join(' · '),
});

/** Output tok/s of each hardware profile's best run, as horizontal bars (labels above them on the narrow variant). */
export function bestByHardwareChart(runs: readonly ChartRun[], subject: string, width = DEFAULT_WIDTH): string {
  return horizontalBarChart({
    title: `Output tok/s by hardware: ${subject}`,
    description: `Best approved run of ${subject} on each hardware profile, fastest first.`,
    valueLabel: 'output tok/s',
    width,
    labelsAbove: width <= NARROW_WIDTH,
    data: runs.filter((run) => typeof run.tokSOut === 'number').map((run) => runBar(run)),
  });
}

/**
 * Output tok/s against the memory of the machine (log scale), coloured and shaped by
 * hardware class; the fastest runs are named beside their points, suspect runs drawn hollow.
 */
export function speedVersusMemoryChart(runs: readonly ChartRun[], subject: string, width = DEFAULT_WIDTH): string {
  return scatterChart({
    title: `Output tok/s against memory: ${subject}`,
    description: `Each point is one run of ${subject}: memory of the machine (GB, log scale) across, output tokens per second up, each kind of hardware (discrete GPU, unified memory, CPU) in its own colour and shape. Runs above the decode-speed bound are marked suspect.`,
    xLabel: 'memory (GB)',
    yLabel: 'output tok/s',
    xLog: true,
    width,
    height: width <= NARROW_WIDTH ? 320 : undefined,
    series: HW_CLASS_SERIES,
    directLabels: width <= NARROW_WIDTH ? 3 : DIRECT_LABELS,
    data: runs.flatMap((run) => {
      const memory = memoryOf(run.hardware);
      if (typeof run.tokSOut !== 'number' || memory === undefined) return [];
      const model = run.model?.displayName ? `${run.model.displayName} · ` : '';
      const streams = streamsLabel(run);
      return [
        {
          x: memory,
          y: run.tokSOut,
          label: `${model}${hardwareLabel(run.hardware)}: ${formatNumber(run.tokSOut, 1)} tok/s${streams ? ` (${streams}, aggregate)` : ''}`,
          shortLabel: `${formatNumber(run.tokSOut, 0)} · ${shortHardwareName(run.hardware)}`,
          href: `/runs/${run.id}`,
          suspect: run.plausibility === 'suspect',
          series: run.hardware?.hwClass,
        },
      ];
    }),
  });
}

/** Runs in one phone-sized chart: the fastest as bars, model and hardware above each. */
const PHONE_BARS = 10;

/**
 * The leaderboard's chart: the scatter on wide screens; on phones the fastest runs as
 * bars with their labels above, where a scatter's points and labels would crowd.
 */
export function leaderboardChart(runs: readonly ChartRun[], subject: string): string {
  const fastest = horizontalBarChart({
    title: `Fastest runs: ${subject}`,
    description: `The ${PHONE_BARS} fastest runs of ${subject} by output tokens per second, with model and hardware above each bar.`,
    valueLabel: 'output tok/s',
    width: NARROW_WIDTH,
    labelsAbove: true,
    maxBars: PHONE_BARS,
    data: runs
      .filter((run) => typeof run.tokSOut === 'number')
      .map((run) => runBar(run, `${run.model?.displayName ?? ''} · ${shortHardwareName(run.hardware)}`)),
  });
  return responsiveChart(speedVersusMemoryChart(runs, subject), fastest);
}
