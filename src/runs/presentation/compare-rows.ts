import { deviceOf, type DeviceFacts } from '../../lib/hardware-devices.ts';
import {
  activeSequences,
  formatNumber,
  hardwareLabel,
  hwClassLabel,
  notStated,
  powerSourceOf,
  streamsLabel,
  verdictLabel,
} from '../../lib/labels.ts';

/** A run as the API returns it. */
type Run = Record<string, any> & { id: string };

export interface CompareCell {
  text: string;
  href?: string;
  /** The best figure of its row (only in rows whose figures differ). */
  best?: boolean;
}

export interface CompareRow {
  label: string;
  cells: CompareCell[];
  /** The runs do not all show the same thing here. */
  differs: boolean;
}

/** A figure row: which way is better, and the run field (`notStated` fields say so). */
interface FigureRow {
  label: string;
  value: (run: Run) => unknown;
  unit?: string;
  digits?: number;
  better?: 'higher' | 'lower';
  field?: string;
  /** A figure summed over a run's streams: marked "×N streams" on a throughput run, and no best across different stream counts. */
  aggregate?: true;
}

const TEXT_ROWS: { label: string; cell: (run: Run) => CompareCell }[] = [
  { label: 'Model', cell: (run) => ({ text: run.model.displayName, href: `/models/${run.model.hfId}` }) },
  { label: 'Hardware', cell: (run) => ({ text: hardwareLabel(run.hardware), href: `/hardware/${run.hardwareId}` }) },
  // The device the written names resolve to (an admin's mapping included): runs of one device compare as one.
  {
    label: 'Device',
    cell: (run) => {
      const device = deviceOf(run.hardware as DeviceFacts);
      return { text: device.name, href: `/hardware/${device.slug}` };
    },
  },
  { label: 'Hardware class', cell: (run) => ({ text: hwClassLabel(run.hardware.hwClass) }) },
  { label: 'Engine', cell: (run) => ({ text: [run.engineName, run.engineVersion].filter(Boolean).join(' ') }) },
  { label: 'Quantization', cell: (run) => ({ text: run.quantization ?? '' }) },
];

const FIGURE_ROWS: FigureRow[] = [
  { label: 'Output tok/s', value: (run) => run.tokSOut, digits: 1, better: 'higher', aggregate: true },
  { label: 'Prefill tok/s', value: (run) => run.tokSPrefill, digits: 0, better: 'higher' },
  { label: 'Total tok/s', value: (run) => run.tokSTotal, digits: 1, better: 'higher', aggregate: true },
  { label: 'Time to first token', value: (run) => run.ttftMs, unit: 'ms', digits: 0, better: 'lower' },
  // peakVramGb is unified memory on unified-memory machines and RAM on CPUs.
  { label: 'Peak memory (VRAM or unified)', value: (run) => run.peakVramGb, unit: 'GB', digits: 1, better: 'lower' },
  { label: 'Output tok/W', value: (run) => run.tokPerWatt, digits: 2, better: 'higher' },
  { label: 'Streams (batch × requests in flight)', value: (run) => activeSequences(run), digits: 0 },
  { label: 'Context length', value: (run) => run.contextLength, digits: 0, field: 'contextLength' },
  { label: 'Prompt tokens', value: (run) => run.promptTokens, digits: 0, field: 'promptTokens' },
  { label: 'Output tokens', value: (run) => run.outputTokens, digits: 0, field: 'outputTokens' },
  { label: 'Tokens already cached', value: (run) => run.prefillTokens, digits: 0, field: 'prefillTokens' },
  { label: 'Power (cards summed)', value: (run) => run.totalPowerWatts, unit: 'W', digits: 0 },
];

const TAIL_ROWS: { label: string; cell: (run: Run) => CompareCell }[] = [
  { label: 'Power', cell: (run) => ({ text: powerSourceOf(run as { powerSource?: unknown }) ?? 'not given' }) },
  { label: 'Plausibility', cell: (run) => ({ text: verdictLabel(run.plausibility) }) },
  { label: 'Evidence', cell: (run) => ({ text: run.verifiedRun ? 'verified' : 'not verified' }) },
  { label: 'Submitted by', cell: (run) => ({ text: `@${run.user.username}`, href: `/u/${run.user.username}` }) },
  { label: 'Submitted', cell: (run) => ({ text: String(run.createdAt).slice(0, 10) }) },
];

function textRow(label: string, cells: CompareCell[]): CompareRow {
  return { label, cells, differs: new Set(cells.map((cell) => cell.text)).size > 1 };
}

function figureRow(row: FigureRow, runs: readonly Run[]): CompareRow {
  const values = runs.map((run) => {
    const value = row.value(run);
    return typeof value === 'number' && !(row.field && notStated(run, row.field)) ? value : null;
  });
  const cells: CompareCell[] = runs.map((run, i) => {
    const value = values[i];
    const streams = row.aggregate ? streamsLabel(run) : '';
    if (value !== null)
      return { text: `${formatNumber(value, row.digits)}${row.unit ? ` ${row.unit}` : ''}${streams ? ` (${streams})` : ''}` };
    return { text: row.field && notStated(run, row.field) ? 'not stated' : '—' };
  });
  const result = textRow(row.label, cells);
  const known = values.filter((value): value is number => value !== null);
  // One stream's speed and N streams' aggregate are not the same measure: no "best" between them.
  const likeForLike = !row.aggregate || new Set(runs.map((run) => activeSequences(run))).size === 1;
  if (result.differs && row.better && known.length > 1 && likeForLike) {
    const best = row.better === 'higher' ? Math.max(...known) : Math.min(...known);
    values.forEach((value, i) => {
      if (value === best) cells[i]!.best = true;
    });
  }
  return result;
}

/** The rows of the compare view: one per fact, one cell per run, differences and bests marked. */
export function compareRows(runs: readonly Run[]): CompareRow[] {
  return [
    ...TEXT_ROWS.map(({ label, cell }) => textRow(label, runs.map(cell))),
    ...FIGURE_ROWS.map((row) => figureRow(row, runs)),
    ...TAIL_ROWS.map(({ label, cell }) => textRow(label, runs.map(cell))),
  ];
}
