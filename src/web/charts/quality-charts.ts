import { formatNumber, hardwareLabel, shortHardwareLabel } from '../../lib/labels.ts';
import { HW_CLASS_SERIES } from '../../runs/presentation/charts.ts';
import { horizontalBarChart, scatterChart } from './svg-charts.ts';

/** What the quality charts read of a run: its page, model, quantization, hardware and score. */
export interface QualityChartRun {
  id: string;
  score: number;
  /** The score's standard error (0-100 scale), null when the tasks do not give one. */
  scoreStdError: number | null;
  quantization: string | null;
  model: { displayName: string };
  hardware: Record<string, unknown>;
}

const runLabel = (run: QualityChartRun) =>
  `${run.model.displayName} · ${run.quantization ?? 'quantization not given'} · ${hardwareLabel(run.hardware as { hwClass: string })}`;

/**
 * Quality against speed: each run with a speed measurement is a point at (best output tok/s
 * of the same model, quantization and hardware class, score), coloured and shaped by hardware
 * class with a legend, the leading points named beside them. Runs without one are not drawn;
 * the page lists them.
 */
export function qualityVersusSpeedChart(runs: readonly (QualityChartRun & { bestTokSOut: number | null })[], suiteName: string): string {
  return scatterChart({
    title: 'Quality vs speed',
    description: `Each point is one approved run of ${suiteName}: the fastest approved speed test of the same model and quantization on the same hardware class across (output tok/s, log scale), the run's score (0-100) up.`,
    xLabel: 'best output tok/s',
    yLabel: 'score',
    xLog: true,
    series: HW_CLASS_SERIES,
    directLabels: 5,
    data: runs.flatMap((run) =>
      run.bestTokSOut === null
        ? []
        : [
            {
              x: run.bestTokSOut,
              y: run.score,
              label: runLabel(run),
              shortLabel: `${shortHardwareLabel(run.hardware as never).split(' · ')[0]} ${formatNumber(run.score, 1)}`,
              href: `/evals/runs/${run.id}`,
              series: run.hardware.hwClass as string | undefined,
            },
          ],
    ),
  });
}

/** One suite's best score per quantization of a model, with error bars where the score has a standard error. */
export function scoreByQuantizationChart(runs: readonly QualityChartRun[], suiteName: string, modelName: string): string {
  return horizontalBarChart({
    title: `${suiteName}: score by quantization of ${modelName}`,
    description: `Best approved score (0-100) of ${modelName} on ${suiteName} per quantization, highest first; error bars show ± one standard error where the tasks report one.`,
    valueLabel: 'score',
    data: runs.map((run) => ({
      label: run.quantization ?? 'not given',
      value: run.score,
      error: run.scoreStdError ?? undefined,
      href: `/evals/runs/${run.id}`,
      note: hardwareLabel(run.hardware as { hwClass: string }),
    })),
  });
}

/** "71.3 ± 2.1", or the score alone without a standard error. */
export function scoreText(score: number, stdError: number | null): string {
  return stdError === null ? formatNumber(score, 1) : `${formatNumber(score, 1)} ± ${formatNumber(stdError, 1)}`;
}
