import { hardwareLabel } from '../../lib/labels.ts';
import { DEFAULT_WIDTH, horizontalBarChart, NARROW_WIDTH, responsiveChart } from './svg-charts.ts';

/** A run as the API returns it; the chart reads its speed, model, hardware and engine. */
type ChartRun = Record<string, any> & { id: string };

/** A device's best single-stream output tok/s per model, as horizontal bars, fastest first (labels above the bars on phones). */
export function speedByModelChart(runs: readonly ChartRun[], device: string): string {
  return responsiveChart(speedByModelBars(runs, device, DEFAULT_WIDTH), speedByModelBars(runs, device, NARROW_WIDTH));
}

function speedByModelBars(runs: readonly ChartRun[], device: string, width: number): string {
  return horizontalBarChart({
    width,
    labelsAbove: width <= NARROW_WIDTH,
    title: `Output tok/s by model: ${device}`,
    description: `Best approved single-stream run of each model on ${device}, fastest first.`,
    valueLabel: 'output tok/s',
    data: runs
      .filter((run) => typeof run.tokSOut === 'number')
      .map((run) => ({
        label: run.model.displayName as string,
        value: run.tokSOut as number,
        href: `/runs/${run.id}`,
        note: [hardwareLabel(run.hardware), run.engineName, run.quantization].filter(Boolean).join(' · '),
      })),
  });
}
