import { formatNumber, hardwareLabel, streamsLabel } from '../../lib/labels.ts';
import { horizontalBarChart, scatterChart } from './svg-charts.ts';

/** A run as the API returns it; the charts read its speed, hardware, engine and model. */
type ChartRun = Record<string, any> & { id: string };

const memoryOf = (hw: Record<string, any>): number | undefined => hw.totalVramGb ?? hw.unifiedMemoryGb ?? hw.ramGb;

/** Output tok/s of each hardware profile's best run, as horizontal bars. */
export function bestByHardwareChart(runs: readonly ChartRun[], subject: string): string {
  return horizontalBarChart({
    title: `Output tok/s by hardware: ${subject}`,
    description: `Best approved run of ${subject} on each hardware profile, fastest first.`,
    valueLabel: 'output tok/s',
    data: runs
      .filter((run) => typeof run.tokSOut === 'number')
      .map((run) => ({
        label: hardwareLabel(run.hardware),
        value: run.tokSOut as number,
        href: `/runs/${run.id}`,
        note: [run.engineName, run.quantization, streamsLabel(run)].filter(Boolean).join(' · '),
      })),
  });
}

/** Output tok/s against the memory of the machine (log scale); suspect runs stand out. */
export function speedVersusMemoryChart(runs: readonly ChartRun[], subject: string): string {
  return scatterChart({
    title: `Output tok/s against memory: ${subject}`,
    description: `Each point is one run of ${subject}: memory of the machine (GB, log scale) across, output tokens per second up. Runs above the decode-speed bound are marked suspect.`,
    xLabel: 'memory (GB)',
    yLabel: 'output tok/s',
    xLog: true,
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
          href: `/runs/${run.id}`,
          suspect: run.plausibility === 'suspect',
        },
      ];
    }),
  });
}
