/**
 * Server-rendered SVG charts: pure functions returning SVG markup strings, embedded
 * inline in pages (no chart library, no browser JavaScript).
 *
 * - Every piece of text that comes from data (titles, labels, notes, axis titles,
 *   hrefs) goes through `escapeXml`, so the output can be passed to the trusted-HTML
 *   template tag as is.
 * - Strict CSP: no `style` attributes and no <style> elements. Colours come from
 *   `currentColor` (presentation attributes act as fallbacks) and class names the site
 *   stylesheet defines: chart, chart-bar, chart-point, chart-point-suspect, chart-axis,
 *   chart-grid, chart-label, chart-value, chart-note, chart-axis-title, chart-caption,
 *   chart-series-0 ... chart-series-5 (one colour per series), chart-direct-label.
 * - Phones: a chart drawn for a 720-wide viewBox shrinks its text below legibility at
 *   390 px, so pages draw a second, narrow variant (`NARROW_WIDTH`) and `responsiveChart`
 *   lets the stylesheet show the one that fits.
 * - Deterministic: same input, same string (ids derive from a hash of the input, not a
 *   counter); coordinates are rounded to one decimal.
 * - Text widths are estimated (no font metrics on the server): labels longer than the
 *   label column are cut with an ellipsis; the full text stays in the <title> tooltip.
 */

export interface BarDatum {
  label: string;
  value: number;
  href?: string;
  /** Secondary line under the label, e.g. engine + quantization. */
  note?: string;
  /** Uncertainty drawn as an error bar from value - error to value + error (a standard error, say). */
  error?: number;
}

export interface HorizontalBarChartOptions {
  title: string;
  description: string;
  data: readonly BarDatum[];
  /** Unit/axis title for the values, e.g. 'output tok/s'. */
  valueLabel: string;
  /** viewBox width; default 720. */
  width?: number;
  /** Bars shown (highest values first); default 20. */
  maxBars?: number;
  /** Labels (and notes) on a line above each bar, the bar using the full width: the layout for narrow screens. */
  labelsAbove?: boolean;
  /** Optional explicit id prefix ([A-Za-z][A-Za-z0-9_-]*); default: hash of the input. */
  id?: string;
}

export interface PointDatum {
  x: number;
  y: number;
  label: string;
  href?: string;
  suspect?: boolean;
  /** The series (e.g. a hardware class) the point belongs to: its colour, shape and legend entry. */
  series?: string;
  /** Short text drawn next to the point when it is among the leading points (default: `label`). */
  shortLabel?: string;
}

/** A series of a scatter chart, in legend order. */
export interface ScatterSeries {
  key: string;
  label: string;
}

export interface ScatterChartOptions {
  title: string;
  description: string;
  data: readonly PointDatum[];
  /** x axis title, e.g. 'memory (GB)'. */
  xLabel: string;
  /** y axis title, e.g. 'output tok/s'. */
  yLabel: string;
  /** Logarithmic x axis (points with x <= 0 are skipped). */
  xLog?: boolean;
  /** viewBox width; default 720. */
  width?: number;
  /** viewBox height; default 400. */
  height?: number;
  /**
   * Legend order and names of the points' series; series met in the data but not listed
   * follow, named by their key. Without any series, points are one colour with no legend.
   */
  series?: readonly ScatterSeries[];
  /** How many of the highest points get their `shortLabel` drawn beside them; default 0. */
  directLabels?: number;
  /** Optional explicit id prefix ([A-Za-z][A-Za-z0-9_-]*); default: hash of the input. */
  id?: string;
}

export const DEFAULT_WIDTH = 720;
/** viewBox width of the phone variant: about the CSS pixels a 390 px screen gives a chart, so 12-unit text stays 12 px. */
export const NARROW_WIDTH = 340;
export const DEFAULT_HEIGHT = 400;
export const DEFAULT_MAX_BARS = 20;

const MIN_WIDTH = 240;
const MAX_SIZE = 4000;
const MIN_HEIGHT = 160;
const FONT = 12;
const SMALL_FONT = 10;
/** Rough average glyph advance of a sans-serif font, as a fraction of the font size. */
const CHAR_EM = 0.58;
const ELLIPSIS = '\u2026';

// ---------------------------------------------------------------------------------
// Text helpers

/**
 * Escape text for XML/HTML element content and double- or single-quoted attribute
 * values. Characters XML 1.0 forbids (C0 controls other than tab/LF/CR, U+FFFE/U+FFFF,
 * lone surrogates) are dropped so the output always stays well-formed.
 */
export function escapeXml(text: string): string {
  return String(text)
    .replace(
      /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g,
      '',
    )
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** Cut `text` to at most `maxChars` code points, ending in an ellipsis when cut. */
export function truncateText(text: string, maxChars: number): string {
  const chars = Array.from(text);
  if (chars.length <= maxChars) return text;
  if (maxChars <= 1) return ELLIPSIS;
  return (
    chars
      .slice(0, maxChars - 1)
      .join('')
      .trimEnd() + ELLIPSIS
  );
}

function textLength(text: string): number {
  return Array.from(text).length;
}

function estimateWidth(text: string, fontSize: number): number {
  return textLength(text) * fontSize * CHAR_EM;
}

/**
 * Only relative URLs and http(s)/mailto links are rendered as links; anything else
 * (javascript:, data:, ...) is dropped and the mark is drawn without a link.
 */
export function safeHref(href: string | undefined): string | undefined {
  if (href === undefined) return undefined;
  const trimmed = href.trim();
  if (trimmed === '') return undefined;
  // Browsers ignore ASCII tab/newline (and leading controls/spaces) in URLs.
  const compact = trimmed.replace(/[\u0000-\u0020]/g, '');
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(compact);
  if (scheme && !['http', 'https', 'mailto'].includes(scheme[1]!.toLowerCase())) return undefined;
  return trimmed;
}

// ---------------------------------------------------------------------------------
// Number helpers

/** Coordinate: rounded to one decimal, never "-0". */
function c(n: number): string {
  const r = Math.round(n * 10) / 10;
  return String(r === 0 ? 0 : r);
}

function groupThousands(fixed: string): string {
  const negative = fixed.startsWith('-');
  const body = negative ? fixed.slice(1) : fixed;
  const [int, frac] = body.split('.') as [string, string | undefined];
  const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return (negative ? '-' : '') + grouped + (frac !== undefined ? `.${frac}` : '');
}

/** Fixed decimals with thousands separators (locale-independent, deterministic). */
export function formatFixed(value: number, decimals: number): string {
  const fixed = value.toFixed(Math.max(0, Math.min(20, decimals)));
  return groupThousands(/^-0(\.0+)?$/.test(fixed) ? fixed.slice(1) : fixed);
}

/** Data value for labels and tooltips: 1234 / 123.4 / 12.3 / 0.12. */
export function formatValue(value: number): string {
  const abs = Math.abs(value);
  let text: string;
  if (abs >= 1000) text = formatFixed(value, 0);
  else if (abs >= 1) text = formatFixed(value, 1);
  else text = formatFixed(value, 2);
  return text.includes('.') ? text.replace(/\.?0+$/, '') : text;
}

function tidy(n: number): number {
  const r = Number(n.toPrecision(12));
  return r === 0 ? 0 : r;
}

/** Decimals needed to print multiples of `step` exactly. */
function decimalsFor(step: number): number {
  return Math.max(0, -Math.floor(Math.log10(step) + 1e-9));
}

function niceStep(rough: number): number {
  const exp = Math.floor(Math.log10(rough));
  const base = 10 ** exp;
  const f = rough / base;
  const nf = f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10;
  return tidy(nf * base);
}

export interface LinearTicks {
  /** Domain covered by the axis: [ticks[0], ticks[last]]. */
  min: number;
  max: number;
  step: number;
  ticks: number[];
}

/**
 * "Nice" linear ticks (steps of 1, 2 or 5 x 10^k) covering [min, max], with about
 * `target` intervals. A degenerate range is widened (max = min + 1, or 0..1).
 */
export function niceTicks(min: number, max: number, target = 5): LinearTicks {
  let lo = Number.isFinite(min) ? min : 0;
  let hi = Number.isFinite(max) ? max : 1;
  if (hi < lo) [lo, hi] = [hi, lo];
  if (hi === lo) {
    if (lo === 0) hi = 1;
    else if (lo > 0) lo = 0;
    else hi = 0;
  }
  const intervals = Math.max(1, Math.round(target));
  const step = niceStep((hi - lo) / intervals);
  const first = Math.floor(tidy(lo / step));
  const last = Math.ceil(tidy(hi / step));
  const ticks: number[] = [];
  for (let i = first; i <= last; i++) ticks.push(tidy(i * step));
  return { min: ticks[0]!, max: ticks[ticks.length - 1]!, step, ticks };
}

export interface LogTicks {
  min: number;
  max: number;
  ticks: number[];
}

/**
 * Log-scale ticks 1, 2, 5, 10, 20, 50, ... covering [min, max] (both > 0). The domain
 * snaps outwards to the nearest such value; when the range spans more than three
 * decades only powers of ten are ticked.
 */
export function logTicks(min: number, max: number): LogTicks {
  let lo = min;
  let hi = max;
  if (!(lo > 0) || !Number.isFinite(lo)) lo = 1;
  if (!(hi > 0) || !Number.isFinite(hi)) hi = lo;
  if (hi < lo) [lo, hi] = [hi, lo];
  const loExp = Math.floor(Math.log10(lo) + 1e-9);
  const hiExp = Math.ceil(Math.log10(hi) - 1e-9);
  const candidates: number[] = [];
  for (let e = loExp - 1; e <= hiExp + 1; e++) {
    for (const m of [1, 2, 5]) candidates.push(tidy(e < 0 ? m / 10 ** -e : m * 10 ** e));
  }
  let domainLo = candidates.filter((t) => t <= lo * (1 + 1e-9)).pop() ?? candidates[0]!;
  let domainHi = candidates.find((t) => t >= hi * (1 - 1e-9)) ?? candidates[candidates.length - 1]!;
  if (domainLo === domainHi) {
    const i = candidates.indexOf(domainLo);
    domainLo = candidates[Math.max(0, i - 1)]!;
    domainHi = candidates[Math.min(candidates.length - 1, i + 1)]!;
  }
  const decades = Math.log10(domainHi / domainLo);
  let ticks = candidates.filter((t) => t >= domainLo && t <= domainHi);
  if (decades > 3) {
    ticks = ticks.filter((t) => Math.abs(Math.log10(t) - Math.round(Math.log10(t))) < 1e-9);
    if (ticks[0] !== domainLo) ticks.unshift(domainLo);
    if (ticks[ticks.length - 1] !== domainHi) ticks.push(domainHi);
  }
  return { min: domainLo, max: domainHi, ticks };
}

function formatLogTick(t: number): string {
  return formatFixed(t, decimalsFor(t));
}

// ---------------------------------------------------------------------------------
// SVG scaffolding

function hash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, '0');
}

function chartId(explicit: string | undefined, seed: string): string {
  if (explicit !== undefined && /^[A-Za-z][A-Za-z0-9_-]*$/.test(explicit)) return explicit;
  return `chart-${hash(seed)}`;
}

function clampSize(value: number | undefined, fallback: number, min: number): number {
  if (value === undefined || !Number.isFinite(value)) return fallback;
  return Math.round(Math.min(MAX_SIZE, Math.max(min, value)));
}

/**
 * A chart without links is one image to assistive technology; one with links is a named
 * group, because an image's children are presentational and its links would be hidden.
 */
function svgOpen(id: string, kind: string, width: number, height: number, title: string, description: string, linked = false): string {
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" class="chart chart-${kind}" role="${linked ? 'group' : 'img'}" ` +
    `aria-labelledby="${id}-title ${id}-desc" viewBox="0 0 ${c(width)} ${c(height)}" ` +
    `width="100%" preserveAspectRatio="xMinYMin meet">` +
    `<title id="${id}-title">${escapeXml(title)}</title>` +
    `<desc id="${id}-desc">${escapeXml(description)}</desc>`
  );
}

function emptyChart(id: string, kind: string, width: number, title: string, description: string): string {
  const height = 60;
  return (
    svgOpen(id, kind, width, height, title, description) +
    `<text class="chart-label" x="${c(width / 2)}" y="34" text-anchor="middle" font-size="${FONT + 2}" fill="currentColor">No data</text>` +
    `</svg>`
  );
}

function text(
  x: number,
  y: number,
  content: string,
  cls: string,
  attrs: { anchor?: 'start' | 'middle' | 'end'; size?: number; transform?: string } = {},
): string {
  const anchor = attrs.anchor ? ` text-anchor="${attrs.anchor}"` : '';
  const transform = attrs.transform ? ` transform="${attrs.transform}"` : '';
  return (
    `<text class="${cls}" x="${c(x)}" y="${c(y)}"${anchor} font-size="${attrs.size ?? FONT}" fill="currentColor"${transform}>` +
    `${escapeXml(content)}</text>`
  );
}

function line(x1: number, y1: number, x2: number, y2: number, cls: 'chart-axis' | 'chart-grid'): string {
  const paint = cls === 'chart-grid' ? ' stroke-opacity="0.15"' : '';
  return `<line class="${cls}" x1="${c(x1)}" y1="${c(y1)}" x2="${c(x2)}" y2="${c(y2)}" stroke="currentColor"${paint} stroke-width="1"/>`;
}

function wrapLink(href: string | undefined, inner: string): string {
  const safe = safeHref(href);
  return safe === undefined ? inner : `<a href="${escapeXml(safe)}">${inner}</a>`;
}

// ---------------------------------------------------------------------------------
// Horizontal bar chart

/** A bar's error when it can be drawn (finite, not negative). */
function errorOf(d: BarDatum): number | undefined {
  return d.error !== undefined && Number.isFinite(d.error) && d.error >= 0 ? d.error : undefined;
}

/**
 * Horizontal bars, highest value first, capped at `maxBars`; each bar carries its
 * value at the bar end and a <title> tooltip ("label (note): value unit").
 * Non-finite and negative values are skipped. A bar with a finite, non-negative `error`
 * gets an error bar (class chart-error) and "value ± error" as its value text.
 */
export function horizontalBarChart(options: HorizontalBarChartOptions): string {
  const { title, description, valueLabel } = options;
  const width = clampSize(options.width, DEFAULT_WIDTH, MIN_WIDTH);
  const maxBars =
    options.maxBars !== undefined && Number.isFinite(options.maxBars) && options.maxBars >= 1
      ? Math.floor(options.maxBars)
      : DEFAULT_MAX_BARS;

  const valid = options.data.filter((d) => Number.isFinite(d.value) && d.value >= 0);
  const sorted = valid
    .map((d, i) => ({ d, i }))
    .sort((a, b) => b.d.value - a.d.value || a.i - b.i)
    .map((e) => e.d);
  const shown = sorted.slice(0, maxBars);

  const seed = JSON.stringify([
    'bar',
    title,
    description,
    valueLabel,
    width,
    maxBars,
    options.labelsAbove === true,
    shown.map((d) => [d.label, d.value, d.href ?? null, d.note ?? null, errorOf(d) ?? null]),
  ]);
  const id = chartId(options.id, seed);
  if (shown.length === 0) return emptyChart(id, 'bar', width, title, description);

  const capped = sorted.length > shown.length;
  const fullDescription = capped ? `${description} Showing the top ${shown.length} of ${sorted.length}.`.trim() : description;

  const hasNotes = shown.some((d) => d.note !== undefined && d.note !== '');
  const above = options.labelsAbove === true;
  const noteFont = above ? SMALL_FONT + 1 : SMALL_FONT;
  // Labels above: a label line (and a note line) over each full-width bar.
  const textLines = above ? (hasNotes ? 2 : 1) : 0;
  const barH = hasNotes && !above ? 20 : 18;
  const rowH = above ? textLines * 15 + barH + 8 : hasNotes ? 36 : 26;
  const top = 8;

  // Label column: fits the longest label (or note), at most 40% of the width; none when labels sit above.
  const longest = Math.max(...shown.map((d) => Math.max(estimateWidth(d.label, FONT), d.note ? estimateWidth(d.note, noteFont) : 0)));
  const labelW = above ? 2 : Math.round(Math.min(Math.floor(width * 0.4), Math.max(60, longest + 14)));
  const labelChars = Math.max(4, Math.floor(((above ? width : labelW) - 12) / (FONT * CHAR_EM)));
  const noteChars = Math.max(4, Math.floor(((above ? width : labelW) - 12) / (noteFont * CHAR_EM)));

  const values = shown.map((d) => formatValue(d.value) + (errorOf(d) === undefined ? '' : ` ± ${formatValue(errorOf(d)!)}`));
  const valueW = Math.max(...values.map((v) => estimateWidth(v, FONT))) + 12;
  const x0 = labelW;
  const plotW = Math.max(40, width - labelW - valueW - 8);
  const maxValue = Math.max(...shown.map((d) => d.value + (errorOf(d) ?? 0)));
  const scale = niceTicks(0, maxValue, Math.min(8, Math.max(2, Math.round(plotW / 90))));
  const sx = (v: number) => x0 + ((v - scale.min) / (scale.max - scale.min)) * plotW;

  const y0 = top + shown.length * rowH; // value axis baseline
  const tickLabelY = y0 + 16;
  const axisTitleY = y0 + 34;
  const captionY = axisTitleY + 18;
  const height = (capped ? captionY : axisTitleY) + 10;

  const decimals = decimalsFor(scale.step);
  const linked = shown.some((d) => safeHref(d.href) !== undefined);
  const parts: string[] = [svgOpen(id, 'bar', width, height, title, fullDescription, linked)];

  parts.push('<g class="chart-grid-lines">');
  for (const t of scale.ticks) parts.push(line(sx(t), top, sx(t), y0, 'chart-grid'));
  parts.push('</g>');

  parts.push('<g class="chart-bars">');
  shown.forEach((d, i) => {
    const rowTop = top + i * rowH;
    const mid = above ? rowTop + textLines * 15 + barH / 2 + 2 : rowTop + rowH / 2;
    const barEnd = sx(d.value);
    const note = d.note !== undefined && d.note !== '' ? d.note : undefined;
    const tooltip = `${d.label}${note ? ` (${note})` : ''}: ${values[i]} ${valueLabel}`.trim();
    const row: string[] = [];
    if (above) {
      // Clear of the value axis drawn at x0.
      row.push(text(x0 + 4, rowTop + 12, truncateText(d.label, labelChars), 'chart-label', { anchor: 'start' }));
      if (note) row.push(text(x0 + 4, rowTop + 26, truncateText(note, noteChars), 'chart-note', { anchor: 'start', size: noteFont }));
    } else if (note) {
      row.push(text(labelW - 8, mid - 2, truncateText(d.label, labelChars), 'chart-label', { anchor: 'end' }));
      row.push(text(labelW - 8, mid + 11, truncateText(note, noteChars), 'chart-note', { anchor: 'end', size: SMALL_FONT }));
    } else {
      row.push(text(labelW - 8, mid + 4, truncateText(d.label, labelChars), 'chart-label', { anchor: 'end' }));
    }
    row.push(
      `<rect class="chart-bar" x="${c(x0)}" y="${c(mid - barH / 2)}" width="${c(barEnd - x0)}" height="${c(barH)}" fill="currentColor">` +
        `<title>${escapeXml(tooltip)}</title></rect>`,
    );
    const error = errorOf(d);
    let valueX = barEnd + 6;
    if (error !== undefined) {
      const low = sx(Math.max(0, d.value - error));
      const high = sx(d.value + error);
      const cap = barH / 4;
      const stroke = 'stroke="currentColor" stroke-width="1.5"';
      row.push(
        `<path class="chart-error" d="M${c(low)} ${c(mid)}H${c(high)}M${c(low)} ${c(mid - cap)}V${c(mid + cap)}M${c(high)} ${c(mid - cap)}V${c(mid + cap)}" fill="none" ${stroke}/>`,
      );
      valueX = high + 6;
    }
    row.push(text(valueX, mid + 4, values[i]!, 'chart-value'));
    parts.push(wrapLink(d.href, `<g class="chart-row">${row.join('')}</g>`));
  });
  parts.push('</g>');

  parts.push('<g class="chart-axes">');
  parts.push(line(x0, top, x0, y0, 'chart-axis'));
  parts.push(line(x0, y0, x0 + plotW, y0, 'chart-axis'));
  for (const t of scale.ticks) {
    parts.push(line(sx(t), y0, sx(t), y0 + 4, 'chart-axis'));
    parts.push(text(sx(t), tickLabelY, formatFixed(t, decimals), 'chart-label', { anchor: 'middle', size: SMALL_FONT + 1 }));
  }
  parts.push(text(x0 + plotW / 2, axisTitleY, valueLabel, 'chart-axis-title', { anchor: 'middle' }));
  parts.push('</g>');

  if (capped) {
    parts.push(text(x0, captionY, `Top ${shown.length} of ${sorted.length}`, 'chart-caption', { anchor: 'start', size: SMALL_FONT + 1 }));
  }
  parts.push('</svg>');
  return parts.join('');
}

// ---------------------------------------------------------------------------------
// Scatter chart

/** Marks per series, told apart by shape as well as colour (colour-blind readers); series beyond them reuse them. */
const SERIES_SHAPES = ['circle', 'square', 'triangle', 'diamond', 'triangle-down', 'cross'] as const;
type Shape = (typeof SERIES_SHAPES)[number];

/** The path (or circle) of a mark of `shape` centred on (x, y), radius about `r`. */
function markShape(shape: Shape, x: number, y: number, r: number): { tag: 'circle' | 'path'; geometry: string } {
  if (shape === 'circle') return { tag: 'circle', geometry: `cx="${c(x)}" cy="${c(y)}" r="${c(r)}"` };
  const s = r * 0.9;
  const d =
    shape === 'square'
      ? `M${c(x - s)} ${c(y - s)}H${c(x + s)}V${c(y + s)}H${c(x - s)}Z`
      : shape === 'triangle'
        ? `M${c(x)} ${c(y - r * 1.15)}L${c(x + r * 1.1)} ${c(y + r * 0.8)}H${c(x - r * 1.1)}Z`
        : shape === 'triangle-down'
          ? `M${c(x)} ${c(y + r * 1.15)}L${c(x + r * 1.1)} ${c(y - r * 0.8)}H${c(x - r * 1.1)}Z`
          : shape === 'diamond'
            ? diamond(x, y, r * 1.25)
            : `M${c(x - r)} ${c(y - r / 3)}H${c(x - r / 3)}V${c(y - r)}H${c(x + r / 3)}V${c(y - r / 3)}H${c(x + r)}V${c(y + r / 3)}H${c(x + r / 3)}V${c(y + r)}H${c(x - r / 3)}V${c(y + r / 3)}H${c(x - r)}Z`;
  return { tag: 'path', geometry: `d="${d}"` };
}

/** A series mark: filled, or hollow (outlined) for a suspect point, so suspicion keeps the series' colour and shape. */
function seriesMark(shape: Shape, x: number, y: number, r: number, cls: string, hollow: boolean, inner = ''): string {
  const { tag, geometry } = markShape(shape, x, y, r);
  const paint = hollow ? 'fill="none" stroke="currentColor" stroke-width="2"' : 'fill="currentColor" fill-opacity="0.8"';
  return inner ? `<${tag} class="${cls}" ${geometry} ${paint}>${inner}</${tag}>` : `<${tag} class="${cls}" ${geometry} ${paint}/>`;
}

/** The series of the points, in legend order: the listed ones present in the data, then unlisted keys as met. */
function seriesOf(points: readonly PointDatum[], listed: readonly ScatterSeries[] = []): ScatterSeries[] {
  const present = new Set(points.map((d) => d.series).filter((key): key is string => key !== undefined));
  const ordered = listed.filter((entry) => present.has(entry.key));
  for (const key of present) if (!ordered.some((entry) => entry.key === key)) ordered.push({ key, label: key });
  return ordered;
}

/** Legend items laid out left to right, wrapping to new rows within `width`. */
function legendLayout(items: readonly string[], x0: number, width: number): { x: number; row: number }[] {
  const out: { x: number; row: number }[] = [];
  let x = x0;
  let row = 0;
  for (const label of items) {
    const w = 16 + estimateWidth(label, SMALL_FONT + 1) + 14;
    if (x > x0 && x + w > width) {
      x = x0;
      row += 1;
    }
    out.push({ x, row });
    x += w;
  }
  return out;
}

const LEGEND_ROW = 18;

/**
 * Scatter plot: y linear from 0, x linear from 0 or logarithmic (`xLog`). Points with a
 * non-finite or negative coordinate (or x <= 0 on a log axis) are skipped.
 *
 * Without series, points are one colour and suspect points are diamonds with class
 * `chart-point-suspect`. With series (`PointDatum.series`), each series has its colour
 * class `chart-series-N` and its own shape, a legend above the plot names them, and
 * suspect points are drawn hollow (listed in the legend too). `directLabels` writes the
 * short label of the highest points beside them, skipping any that would overlap.
 */
export function scatterChart(options: ScatterChartOptions): string {
  const { title, description, xLabel, yLabel } = options;
  const xLog = options.xLog === true;
  const width = clampSize(options.width, DEFAULT_WIDTH, MIN_WIDTH);
  const height = clampSize(options.height, DEFAULT_HEIGHT, MIN_HEIGHT);
  const directLabels =
    options.directLabels !== undefined && Number.isFinite(options.directLabels) ? Math.max(0, Math.floor(options.directLabels)) : 0;

  const points = options.data.filter((d) => Number.isFinite(d.x) && Number.isFinite(d.y) && d.y >= 0 && (xLog ? d.x > 0 : d.x >= 0));
  const series = seriesOf(points, options.series);
  const seriesIndex = new Map(series.map((entry, i) => [entry.key, i]));

  const seed = JSON.stringify([
    'scatter',
    title,
    description,
    xLabel,
    yLabel,
    xLog,
    width,
    height,
    series,
    directLabels,
    points.map((d) => [d.x, d.y, d.label, d.href ?? null, d.suspect === true, d.series ?? null, d.shortLabel ?? null]),
  ]);
  const id = chartId(options.id, seed);
  if (points.length === 0) return emptyChart(id, 'scatter', width, title, description);

  const anySuspect = points.some((d) => d.suspect === true);
  const withSeries = series.length > 0;
  const legendItems = withSeries ? [...series.map((entry) => entry.label), ...(anySuspect ? ['hollow: suspect'] : [])] : [];
  const legend = legendLayout(legendItems, 8, width - 8);
  const legendRows = legend.length ? legend[legend.length - 1]!.row + 1 : 0;
  const top = withSeries ? 10 + legendRows * LEGEND_ROW + 6 : anySuspect ? 30 : 14;
  const bottom = 46;
  const plotHGuess = height - top - bottom;

  const yMax = Math.max(...points.map((d) => d.y));
  const yScale = niceTicks(0, yMax, Math.min(8, Math.max(2, Math.round(plotHGuess / 55))));
  const yDecimals = decimalsFor(yScale.step);
  const yTickLabels = yScale.ticks.map((t) => formatFixed(t, yDecimals));
  const yTickW = Math.max(...yTickLabels.map((l) => estimateWidth(l, SMALL_FONT + 1)));

  const left = Math.round(22 + yTickW + 10);
  const xs = points.map((d) => d.x);
  const xMin = Math.min(...xs);
  const xMax = Math.max(...xs);

  let xTicks: number[];
  let xTickLabels: string[];
  let sxRaw: (v: number) => number; // 0..1 along the axis
  if (xLog) {
    const lt = logTicks(xMin, xMax);
    xTicks = lt.ticks;
    xTickLabels = xTicks.map(formatLogTick);
    const a = Math.log10(lt.min);
    const b = Math.log10(lt.max);
    sxRaw = (v) => (Math.log10(v) - a) / (b - a);
  } else {
    const plotWGuess = width - left - 20;
    const lt = niceTicks(0, xMax, Math.min(8, Math.max(2, Math.round(plotWGuess / 90))));
    const decimals = decimalsFor(lt.step);
    xTicks = lt.ticks;
    xTickLabels = xTicks.map((t) => formatFixed(t, decimals));
    sxRaw = (v) => (v - lt.min) / (lt.max - lt.min);
  }
  // Narrow charts keep every other tick label, so neighbours never run into each other.
  const tickSpace = (width - left) / Math.max(1, xTicks.length);
  const widestTick = Math.max(...xTickLabels.map((l) => estimateWidth(l, SMALL_FONT + 1)));
  const tickEvery = widestTick + 6 > tickSpace ? 2 : 1;
  const lastXLabelW = estimateWidth(xTickLabels[xTickLabels.length - 1] ?? '', SMALL_FONT + 1);
  const right = Math.round(Math.max(14, lastXLabelW / 2 + 6));
  const plotW = Math.max(40, width - left - right);
  const plotH = Math.max(40, height - top - bottom);
  const sx = (v: number) => left + sxRaw(v) * plotW;
  const sy = (v: number) => top + plotH - ((v - yScale.min) / (yScale.max - yScale.min)) * plotH;
  const yBase = top + plotH;

  const linked = points.some((d) => safeHref(d.href) !== undefined);
  const parts: string[] = [svgOpen(id, 'scatter', width, height, title, description, linked)];

  parts.push('<g class="chart-grid-lines">');
  for (const t of yScale.ticks) parts.push(line(left, sy(t), left + plotW, sy(t), 'chart-grid'));
  for (const t of xTicks) parts.push(line(sx(t), top, sx(t), yBase, 'chart-grid'));
  parts.push('</g>');

  parts.push('<g class="chart-axes">');
  parts.push(line(left, top, left, yBase, 'chart-axis'));
  parts.push(line(left, yBase, left + plotW, yBase, 'chart-axis'));
  yScale.ticks.forEach((t, i) => {
    parts.push(line(left - 4, sy(t), left, sy(t), 'chart-axis'));
    parts.push(text(left - 7, sy(t) + 4, yTickLabels[i]!, 'chart-label', { anchor: 'end', size: SMALL_FONT + 1 }));
  });
  xTicks.forEach((t, i) => {
    parts.push(line(sx(t), yBase, sx(t), yBase + 4, 'chart-axis'));
    if (i % tickEvery === 0)
      parts.push(text(sx(t), yBase + 16, xTickLabels[i]!, 'chart-label', { anchor: 'middle', size: SMALL_FONT + 1 }));
  });
  parts.push(text(left + plotW / 2, yBase + 36, xLog ? `${xLabel} (log scale)` : xLabel, 'chart-axis-title', { anchor: 'middle' }));
  const yMid = top + plotH / 2;
  parts.push(text(-yMid, 14, yLabel, 'chart-axis-title', { anchor: 'middle', transform: 'rotate(-90)' }));
  parts.push('</g>');

  const seriesClass = (d: PointDatum) => {
    const at = d.series === undefined ? undefined : seriesIndex.get(d.series);
    return at === undefined
      ? { shape: SERIES_SHAPES[0], cls: '' }
      : { shape: SERIES_SHAPES[at % SERIES_SHAPES.length]!, cls: ` chart-series-${at % 6}` };
  };

  // Normal points first, suspect points on top (stable within each group).
  const ordered = [...points.filter((d) => d.suspect !== true), ...points.filter((d) => d.suspect === true)];
  parts.push('<g class="chart-points">');
  for (const d of ordered) {
    const px = sx(d.x);
    const py = sy(d.y);
    const seriesName = d.series === undefined ? '' : ` · ${series[seriesIndex.get(d.series)!]!.label}`;
    const tip = `${d.label}: ${formatValue(d.x)} ${xLabel}, ${formatValue(d.y)} ${yLabel}${seriesName}${d.suspect ? ' (suspect)' : ''}`;
    const tipTag = `<title>${escapeXml(tip)}</title>`;
    let mark: string;
    if (withSeries) {
      const { shape, cls } = seriesClass(d);
      mark = seriesMark(shape, px, py, 4.5, `${d.suspect ? 'chart-point-suspect' : 'chart-point'}${cls}`, d.suspect === true, tipTag);
    } else {
      mark = d.suspect
        ? `<path class="chart-point-suspect" d="${diamond(px, py, 6)}" fill="currentColor">${tipTag}</path>`
        : `<circle class="chart-point" cx="${c(px)}" cy="${c(py)}" r="4.5" fill="currentColor" fill-opacity="0.75">${tipTag}</circle>`;
    }
    parts.push(wrapLink(d.href, mark));
  }
  parts.push('</g>');

  if (directLabels > 0) parts.push(directLabelsOf(points, directLabels, { sx, sy, left, top, right: left + plotW, bottom: yBase }));

  if (withSeries) {
    const items = legend.map(({ x, row }, i) => {
      const ly = 10 + row * LEGEND_ROW + 6;
      const isSuspectItem = i >= series.length;
      const mark = isSuspectItem
        ? seriesMark('circle', x + 6, ly, 4.5, 'chart-legend-mark', true)
        : seriesMark(SERIES_SHAPES[i % SERIES_SHAPES.length]!, x + 6, ly, 4.5, `chart-legend-mark chart-series-${i % 6}`, false);
      return mark + text(x + 16, ly + 4, legendItems[i]!, 'chart-label', { anchor: 'start', size: SMALL_FONT + 1 });
    });
    parts.push(`<g class="chart-legend">${items.join('')}</g>`);
  } else if (anySuspect) {
    const lx = left + plotW - 70;
    const ly = 14;
    parts.push(
      `<g class="chart-legend">` +
        `<path class="chart-point-suspect chart-legend-mark" d="${diamond(lx, ly, 5)}" fill="currentColor"/>` +
        text(lx + 9, ly + 4, 'suspect', 'chart-label', { anchor: 'start', size: SMALL_FONT + 1 }) +
        `</g>`,
    );
  }
  parts.push('</svg>');
  return parts.join('');
}

/**
 * The short labels of the `count` highest points, beside them: right of the point, or
 * left of it near the right edge; a label that would overlap one already drawn (or leave
 * the plot) is skipped, so the leading points stay readable.
 */
function directLabelsOf(
  points: readonly PointDatum[],
  count: number,
  plot: { sx: (v: number) => number; sy: (v: number) => number; left: number; top: number; right: number; bottom: number },
): string {
  const size = SMALL_FONT + 1;
  const leading = points
    .map((d, i) => ({ d, i }))
    .sort((a, b) => b.d.y - a.d.y || a.i - b.i)
    .slice(0, count)
    .map((entry) => entry.d);
  const placed: { x1: number; y1: number; x2: number; y2: number }[] = [];
  const out: string[] = [];
  for (const d of leading) {
    const label = truncateText(d.shortLabel ?? d.label, 28);
    const w = estimateWidth(label, size);
    const px = plot.sx(d.x);
    const py = plot.sy(d.y);
    const toLeft = px + 8 + w > plot.right;
    const x1 = toLeft ? px - 8 - w : px + 8;
    // Level with the point, or just under it at the top of the plot (the legend is above).
    const baseline = py + 4 - size < plot.top ? py + size + 2 : py + 4;
    const box = { x1, y1: baseline - size, x2: x1 + w, y2: baseline + 2 };
    const inside = box.x1 >= plot.left && box.y1 >= plot.top && box.y2 <= plot.bottom;
    if (!inside || placed.some((b) => box.x1 < b.x2 && b.x1 < box.x2 && box.y1 < b.y2 && b.y1 < box.y2)) continue;
    placed.push(box);
    out.push(text(toLeft ? px - 8 : px + 8, baseline, label, 'chart-direct-label', { anchor: toLeft ? 'end' : 'start', size }));
  }
  return `<g class="chart-direct-labels">${out.join('')}</g>`;
}

/**
 * One chart drawn twice: for wide screens and for phones (`NARROW_WIDTH`); the stylesheet
 * shows the one that fits, so text keeps its size instead of shrinking with the viewBox.
 */
export function responsiveChart(wide: string, narrow: string): string {
  return `<div class="chart-responsive"><div class="chart-wide">${wide}</div><div class="chart-narrow">${narrow}</div></div>`;
}

function diamond(x: number, y: number, r: number): string {
  return `M${c(x)} ${c(y - r)}L${c(x + r)} ${c(y)}L${c(x)} ${c(y + r)}L${c(x - r)} ${c(y)}Z`;
}
