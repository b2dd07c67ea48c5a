import { expect } from 'chai';
import {
  escapeXml,
  formatValue,
  horizontalBarChart,
  logTicks,
  niceTicks,
  safeHref,
  scatterChart,
  truncateText,
  type BarDatum,
  type PointDatum,
} from '../../src/web/charts/svg-charts.ts';

// ---------------------------------------------------------------------------------
// Minimal XML well-formedness checker + tree (no dependencies). Strict subset: element
// names, double/single-quoted attributes, the five predefined entities and numeric
// character references, comments; one root element.

interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlNode[];
}
type XmlNode = XmlElement | string;

const NAME = /^[A-Za-z_][A-Za-z0-9_.:-]*/;
const ENTITY = /^&(amp|lt|gt|quot|apos|#[0-9]+|#x[0-9A-Fa-f]+);/;

function decodeEntities(raw: string): string {
  let out = '';
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i]!;
    if (ch === '<') throw new Error(`raw "<" in character data at ${i}`);
    if (ch !== '&') {
      out += ch;
      continue;
    }
    const m = ENTITY.exec(raw.slice(i));
    if (!m) throw new Error(`bad entity reference near ${JSON.stringify(raw.slice(i, i + 12))}`);
    const body = m[1]!;
    out +=
      body === 'amp'
        ? '&'
        : body === 'lt'
          ? '<'
          : body === 'gt'
            ? '>'
            : body === 'quot'
              ? '"'
              : body === 'apos'
                ? "'"
                : String.fromCodePoint(body.startsWith('#x') ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10));
    i += m[0].length - 1;
  }
  return out;
}

function parseXml(xml: string): XmlElement {
  let pos = 0;
  const root: XmlElement = { name: '#document', attrs: {}, children: [] };
  const stack: XmlElement[] = [root];
  const top = () => stack[stack.length - 1]!;
  while (pos < xml.length) {
    const lt = xml.indexOf('<', pos);
    const textEnd = lt === -1 ? xml.length : lt;
    if (textEnd > pos) {
      const raw = xml.slice(pos, textEnd);
      if (stack.length === 1 && raw.trim() !== '') throw new Error('text outside the root element');
      top().children.push(decodeEntities(raw));
    }
    if (lt === -1) break;
    pos = lt;
    if (xml.startsWith('<!--', pos)) {
      const end = xml.indexOf('-->', pos + 4);
      if (end === -1) throw new Error('unterminated comment');
      pos = end + 3;
      continue;
    }
    if (xml.startsWith('</', pos)) {
      const m = NAME.exec(xml.slice(pos + 2));
      if (!m) throw new Error(`bad end tag at ${pos}`);
      const after = pos + 2 + m[0].length;
      const close = /^\s*>/.exec(xml.slice(after));
      if (!close) throw new Error(`bad end tag at ${pos}`);
      const open = stack.pop();
      if (!open || open === root || open.name !== m[0]) {
        throw new Error(`mismatched </${m[0]}> (open: ${open?.name ?? 'none'})`);
      }
      pos = after + close[0].length;
      continue;
    }
    const m = NAME.exec(xml.slice(pos + 1));
    if (!m) throw new Error(`bad start tag at ${pos}: ${JSON.stringify(xml.slice(pos, pos + 20))}`);
    const el: XmlElement = { name: m[0], attrs: {}, children: [] };
    pos += 1 + m[0].length;
    for (;;) {
      const ws = /^\s*/.exec(xml.slice(pos))![0];
      pos += ws.length;
      if (xml.startsWith('/>', pos)) {
        pos += 2;
        if (stack.length === 1 && root.children.some((n) => typeof n !== 'string')) throw new Error('two roots');
        top().children.push(el);
        break;
      }
      if (xml.startsWith('>', pos)) {
        pos += 1;
        if (stack.length === 1 && root.children.some((n) => typeof n !== 'string')) throw new Error('two roots');
        top().children.push(el);
        stack.push(el);
        break;
      }
      if (ws.length === 0) throw new Error(`missing whitespace before attribute in <${el.name}> at ${pos}`);
      const a = /^([A-Za-z_][A-Za-z0-9_.:-]*)\s*=\s*("([^"]*)"|'([^']*)')/.exec(xml.slice(pos));
      if (!a) throw new Error(`bad attribute in <${el.name}> at ${pos}: ${JSON.stringify(xml.slice(pos, pos + 30))}`);
      const name = a[1]!;
      if (Object.hasOwn(el.attrs, name)) throw new Error(`duplicate attribute ${name} in <${el.name}>`);
      el.attrs[name] = decodeEntities(a[3] ?? a[4] ?? '');
      pos += a[0].length;
    }
  }
  if (stack.length !== 1) throw new Error(`unclosed <${top().name}>`);
  const elements = root.children.filter((n): n is XmlElement => typeof n !== 'string');
  if (elements.length !== 1) throw new Error('expected exactly one root element');
  return elements[0]!;
}

function walk(el: XmlElement, visit: (el: XmlElement, parent: XmlElement | undefined) => void, parent?: XmlElement): void {
  visit(el, parent);
  for (const child of el.children) if (typeof child !== 'string') walk(child, visit, el);
}

function findAll(root: XmlElement, pred: (el: XmlElement, parent: XmlElement | undefined) => boolean): XmlElement[] {
  const out: XmlElement[] = [];
  walk(root, (el, parent) => {
    if (pred(el, parent)) out.push(el);
  });
  return out;
}

function hasClass(el: XmlElement, cls: string): boolean {
  return (el.attrs.class ?? '').split(/\s+/).includes(cls);
}

function textOf(el: XmlElement): string {
  return el.children.map((n) => (typeof n === 'string' ? n : textOf(n))).join('');
}

function titleOf(el: XmlElement): string | undefined {
  const t = el.children.find((n): n is XmlElement => typeof n !== 'string' && n.name === 'title');
  return t ? textOf(t) : undefined;
}

/** Parent map so a test can ask which <a> wraps a mark. */
function ancestors(root: XmlElement, target: XmlElement): XmlElement[] {
  const parents = new Map<XmlElement, XmlElement | undefined>();
  walk(root, (el, parent) => parents.set(el, parent));
  const out: XmlElement[] = [];
  let p = parents.get(target);
  while (p) {
    out.push(p);
    p = parents.get(p);
  }
  return out;
}

// ---------------------------------------------------------------------------------
// Fixtures

function bars(n: number): BarDatum[] {
  // Values deliberately out of order: 7, 14, 21, ... shuffled by index parity.
  return Array.from({ length: n }, (_, i) => ({
    label: `model-${i}`,
    value: ((i * 37) % n) * 7 + 1.25,
  }));
}

function barChart(data: BarDatum[], extra: Partial<Parameters<typeof horizontalBarChart>[0]> = {}): string {
  return horizontalBarChart({
    title: 'Fastest runs',
    description: 'Output tokens per second by model.',
    valueLabel: 'output tok/s',
    data,
    ...extra,
  });
}

function scatter(data: PointDatum[], extra: Partial<Parameters<typeof scatterChart>[0]> = {}): string {
  return scatterChart({
    title: 'Speed vs memory',
    description: 'Each point is one run.',
    xLabel: 'memory (GB)',
    yLabel: 'output tok/s',
    data,
    ...extra,
  });
}

const POINTS: PointDatum[] = [
  { x: 8, y: 120, label: 'a', href: '/runs/1' },
  { x: 24, y: 45.5, label: 'b' },
  { x: 80, y: 1500, label: 'c', suspect: true },
  { x: Number.NaN, y: 10, label: 'nan-x' },
  { x: 4, y: Number.POSITIVE_INFINITY, label: 'inf-y' },
  { x: -1, y: 10, label: 'neg-x' },
  { x: 3, y: -5, label: 'neg-y' },
  { x: 0, y: 12, label: 'zero-x' },
];

function pointMarks(root: XmlElement): XmlElement[] {
  return findAll(root, (el) => el.attrs.class === 'chart-point' || el.attrs.class === 'chart-point-suspect');
}

function allOutputs(): string[] {
  return [
    barChart(bars(30)),
    barChart([{ label: '<b>&"\'', value: 3, href: '/x?a=1&b=2', note: 'llama.cpp & <q4>' }]),
    barChart([]),
    scatter(POINTS),
    scatter(POINTS, { xLog: true }),
    scatter([]),
    scatter(SERIES_POINTS, { xLog: true, series: SERIES, directLabels: 3 }),
    scatter(SERIES_POINTS, { width: 340, series: SERIES, directLabels: 2 }),
    barChart(bars(12), { labelsAbove: true, width: 340 }),
  ];
}

const SERIES = [
  { key: 'GPU', label: 'Discrete GPU' },
  { key: 'UNI', label: 'Unified memory' },
  { key: 'CPU', label: 'CPU only' },
];
const SERIES_POINTS: PointDatum[] = [
  { x: 24, y: 150, label: 'RTX 4090 run', shortLabel: 'RTX 4090', series: 'GPU', href: '/runs/g1' },
  { x: 48, y: 140, label: 'two cards', shortLabel: '2x 3090', series: 'GPU' },
  { x: 128, y: 90, label: 'M4 Max run', shortLabel: 'M4 Max', series: 'UNI' },
  { x: 64, y: 700, label: 'too fast', shortLabel: 'suspect one', series: 'UNI', suspect: true },
  { x: 256, y: 12, label: 'EPYC run', shortLabel: 'EPYC', series: 'CPU' },
  { x: 16, y: 5, label: 'mystery', series: 'NPU' },
];

// ---------------------------------------------------------------------------------

describe('svg-charts', () => {
  describe('helpers', () => {
    it('escapeXml escapes markup characters and drops XML-invalid characters', () => {
      expect(escapeXml(`<a href="x">'&'</a>`)).to.equal('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
      expect(escapeXml('a\u0000b\u001Fc\td\ne')).to.equal('abc\td\ne');
      expect(escapeXml('x\uD800y')).to.equal('xy');
      expect(escapeXml('emoji \u{1F680}')).to.equal('emoji \u{1F680}');
    });

    it('truncateText cuts on code points and ends with an ellipsis', () => {
      expect(truncateText('short', 10)).to.equal('short');
      expect(truncateText('abcdefghij', 5)).to.equal('abcd\u2026');
      expect(Array.from(truncateText('\u{1F680}'.repeat(10), 4))).to.have.length(4);
    });

    it('safeHref keeps relative and http(s) links and drops script URLs', () => {
      expect(safeHref('/models/llama-3')).to.equal('/models/llama-3');
      expect(safeHref('https://example.org/a')).to.equal('https://example.org/a');
      expect(safeHref('javascript:alert(1)')).to.equal(undefined);
      expect(safeHref(' java\tscript:alert(1)')).to.equal(undefined);
      expect(safeHref('data:text/html,x')).to.equal(undefined);
      expect(safeHref('')).to.equal(undefined);
    });

    it('niceTicks uses 1-2-5 steps and covers the range', () => {
      const t = niceTicks(0, 123.45, 4);
      expect(t.ticks).to.deep.equal([0, 50, 100, 150]);
      expect(niceTicks(0, 0.3, 3).ticks).to.deep.equal([0, 0.1, 0.2, 0.3]);
      expect(niceTicks(0, 0, 5).ticks).to.deep.equal([0, 0.2, 0.4, 0.6, 0.8, 1]);
      for (const max of [0.07, 1, 3.3, 17, 99, 101, 999, 4321, 123456]) {
        const { ticks, step } = niceTicks(0, max, 5);
        expect(ticks[0]).to.equal(0);
        expect(ticks[ticks.length - 1]).to.be.at.least(max);
        const mantissa = step / 10 ** Math.floor(Math.log10(step));
        expect([1, 2, 5]).to.include(Math.round(mantissa * 1e9) / 1e9);
      }
    });

    it('logTicks gives 1, 2, 5, 10, ... and snaps the domain outwards', () => {
      expect(logTicks(1.5, 80)).to.deep.equal({ min: 1, max: 100, ticks: [1, 2, 5, 10, 20, 50, 100] });
      expect(logTicks(0.3, 4).ticks).to.deep.equal([0.2, 0.5, 1, 2, 5]);
      // Wide ranges tick powers of ten only.
      expect(logTicks(1, 100000).ticks).to.deep.equal([1, 10, 100, 1000, 10000, 100000]);
      // Degenerate range widens to neighbouring ticks.
      expect(logTicks(10, 10)).to.deep.equal({ min: 5, max: 20, ticks: [5, 10, 20] });
    });

    it('formatValue is locale-independent', () => {
      expect(formatValue(1234.56)).to.equal('1,235');
      expect(formatValue(123.45)).to.equal('123.5');
      expect(formatValue(12)).to.equal('12');
      expect(formatValue(0.125)).to.equal('0.13');
    });
  });

  describe('horizontalBarChart', () => {
    it('has a <title> and <desc> linked through aria-labelledby, and a responsive viewBox', () => {
      const root = parseXml(barChart(bars(3)));
      expect(root.name).to.equal('svg');
      expect(root.attrs.role).to.equal('img');
      expect(root.attrs.width).to.equal('100%');
      expect(root.attrs.height).to.equal(undefined);
      expect(root.attrs.preserveAspectRatio).to.equal('xMinYMin meet');
      expect(root.attrs.viewBox).to.match(/^0 0 720 \d+(\.\d)?$/);
      const [titleId, descId] = root.attrs['aria-labelledby']!.split(' ');
      const title = findAll(root, (el) => el.name === 'title' && el.attrs.id === titleId);
      const desc = findAll(root, (el) => el.name === 'desc' && el.attrs.id === descId);
      expect(title).to.have.length(1);
      expect(desc).to.have.length(1);
      expect(textOf(title[0]!)).to.equal('Fastest runs');
      expect(textOf(desc[0]!)).to.equal('Output tokens per second by model.');
      // The svg's own title/desc are its first children.
      expect((root.children[0] as XmlElement).name).to.equal('title');
      expect((root.children[1] as XmlElement).name).to.equal('desc');
    });

    it('derives distinct ids from different inputs and honours an explicit id', () => {
      const a = parseXml(barChart(bars(3))).attrs['aria-labelledby'];
      const b = parseXml(barChart(bars(3), { title: 'Other' })).attrs['aria-labelledby'];
      expect(a).to.not.equal(b);
      const c = parseXml(barChart(bars(3), { id: 'gpu-bars' })).attrs['aria-labelledby'];
      expect(c).to.equal('gpu-bars-title gpu-bars-desc');
      const bad = parseXml(barChart(bars(3), { id: '"><x' })).attrs['aria-labelledby'];
      expect(bad).to.match(/^chart-[0-9a-f]{8}-title chart-[0-9a-f]{8}-desc$/);
    });

    it('escapes data text: no raw <script>, & escaped', () => {
      const svg = barChart(
        [
          { label: '<script>alert(1)</script>', value: 10, note: 'vLLM & <fp8>' },
          { label: 'Q&A "model"', value: 5 },
        ],
        { title: 'A & B <i>', description: 'x < y & "z"', valueLabel: 'tok/s <&>' },
      );
      expect(svg).to.not.include('<script');
      expect(svg).to.not.include('<i>');
      expect(svg).to.not.include('<fp8>');
      expect(svg).to.include('&lt;script&gt;');
      expect(svg).to.include('Q&amp;A &quot;model&quot;');
      expect(svg).to.include('A &amp; B &lt;i&gt;');
      expect(svg).to.not.match(/&(?!(amp|lt|gt|quot|#39);)/);
      const root = parseXml(svg);
      const titles = findAll(root, (el) => el.name === 'rect').map(titleOf);
      expect(titles[0]).to.equal('<script>alert(1)</script> (vLLM & <fp8>): 10 tok/s <&>');
    });

    it('sorts bars by value, highest first, and caps them at maxBars', () => {
      const data = bars(25);
      const root = parseXml(barChart(data, { maxBars: 5 }));
      const rects = findAll(root, (el) => el.name === 'rect' && hasClass(el, 'chart-bar'));
      expect(rects).to.have.length(5);
      const expected = [...data].sort((a, b) => b.value - a.value).slice(0, 5);
      expect(rects.map(titleOf)).to.deep.equal(expected.map((d) => `${d.label}: ${formatValue(d.value)} output tok/s`));
      const widths = rects.map((r) => Number(r.attrs.width));
      expect([...widths].sort((a, b) => b - a)).to.deep.equal(widths);
      const desc = findAll(root, (el) => el.name === 'desc')[0]!;
      expect(textOf(desc)).to.include('top 5 of 25');
      expect(findAll(root, (el) => hasClass(el, 'chart-caption')).map(textOf)).to.deep.equal(['Top 5 of 25']);
    });

    it('defaults to 20 bars', () => {
      const root = parseXml(barChart(bars(30)));
      expect(findAll(root, (el) => el.name === 'rect')).to.have.length(20);
    });

    it('prints each value at the bar end', () => {
      const root = parseXml(
        barChart([
          { label: 'x', value: 42.25 },
          { label: 'y', value: 1234.5 },
        ]),
      );
      const values = findAll(root, (el) => hasClass(el, 'chart-value'));
      expect(values.map(textOf)).to.deep.equal(['1,235', '42.3']);
      const rects = findAll(root, (el) => el.name === 'rect');
      rects.forEach((r, i) => {
        const end = Number(r.attrs.x) + Number(r.attrs.width);
        expect(Number(values[i]!.attrs.x)).to.be.closeTo(end + 6, 0.11);
      });
    });

    it('labels the value axis with nice ticks', () => {
      const root = parseXml(
        barChart([
          { label: 'x', value: 140 },
          { label: 'y', value: 20 },
        ]),
      );
      const axisTitle = findAll(root, (el) => hasClass(el, 'chart-axis-title'));
      expect(axisTitle.map(textOf)).to.deep.equal(['output tok/s']);
      const ticks = findAll(
        root,
        (el, parent) => el.name === 'text' && hasClass(el, 'chart-label') && parent !== undefined && hasClass(parent, 'chart-axes'),
      ).map(textOf);
      expect(ticks[0]).to.equal('0');
      expect(Number(ticks[ticks.length - 1])).to.be.at.least(140);
      const step = Number(ticks[1]);
      expect([1, 2, 5]).to.include(step / 10 ** Math.floor(Math.log10(step)));
      ticks.forEach((t, i) => expect(Number(t)).to.equal(i * step));
      expect(ticks.length).to.be.within(3, 9);
    });

    it('wraps a bar in <a href> (SVG 2, not xlink) when href is given', () => {
      const svg = barChart([
        { label: 'linked', value: 5, href: '/models/llama?x=1&y=2' },
        { label: 'plain', value: 3 },
        { label: 'evil', value: 1, href: 'javascript:alert(1)' },
      ]);
      expect(svg).to.not.include('xlink');
      expect(svg).to.not.include('javascript:');
      expect(svg).to.include('href="/models/llama?x=1&amp;y=2"');
      const root = parseXml(svg);
      const links = findAll(root, (el) => el.name === 'a');
      expect(links).to.have.length(1);
      expect(links[0]!.attrs.href).to.equal('/models/llama?x=1&y=2');
      const rects = findAll(root, (el) => el.name === 'rect');
      expect(ancestors(root, rects[0]!).some((el) => el.name === 'a')).to.equal(true);
      expect(ancestors(root, rects[1]!).some((el) => el.name === 'a')).to.equal(false);
      expect(ancestors(root, rects[2]!).some((el) => el.name === 'a')).to.equal(false);
      // An image's children are hidden from assistive technology: a chart with links is a group.
      expect(root.attrs.role).to.equal('group');
    });

    it('truncates long labels with an ellipsis and keeps the full label in <title>', () => {
      const long = 'Meta-Llama-3.1-405B-Instruct-abliterated-uncensored-GGUF-with-a-very-long-name';
      const root = parseXml(barChart([{ label: long, value: 9, note: 'llama.cpp Q4_K_M' }], { width: 480 }));
      const label = findAll(root, (el) => el.name === 'text' && hasClass(el, 'chart-label') && textOf(el).startsWith('Meta'));
      expect(label).to.have.length(1);
      const shown = textOf(label[0]!);
      expect(shown.endsWith('\u2026')).to.equal(true);
      expect(shown.length).to.be.lessThan(long.length);
      expect(long.startsWith(shown.slice(0, -1))).to.equal(true);
      const rect = findAll(root, (el) => el.name === 'rect')[0]!;
      expect(titleOf(rect)).to.equal(`${long} (llama.cpp Q4_K_M): 9 output tok/s`);
      expect(findAll(root, (el) => hasClass(el, 'chart-note')).map(textOf)).to.deep.equal(['llama.cpp Q4_K_M']);
    });

    it('skips non-finite and negative values', () => {
      const root = parseXml(
        barChart([
          { label: 'ok', value: 3 },
          { label: 'zero', value: 0 },
          { label: 'nan', value: Number.NaN },
          { label: 'inf', value: Number.POSITIVE_INFINITY },
          { label: 'neg', value: -2 },
        ]),
      );
      expect(findAll(root, (el) => el.name === 'rect').map(titleOf)).to.deep.equal(['ok: 3 output tok/s', 'zero: 0 output tok/s']);
    });

    it('renders "No data" (still with title and desc) for empty or all-invalid data', () => {
      for (const data of [[], [{ label: 'x', value: Number.NaN }]]) {
        const root = parseXml(barChart(data));
        expect(root.attrs.role).to.equal('img');
        const [titleId, descId] = root.attrs['aria-labelledby']!.split(' ');
        expect(findAll(root, (el) => el.name === 'title' && el.attrs.id === titleId)).to.have.length(1);
        expect(findAll(root, (el) => el.name === 'desc' && el.attrs.id === descId)).to.have.length(1);
        expect(findAll(root, (el) => el.name === 'text').map(textOf)).to.deep.equal(['No data']);
        expect(findAll(root, (el) => el.name === 'rect')).to.have.length(0);
      }
    });

    it('is deterministic', () => {
      expect(barChart(bars(12))).to.equal(barChart(bars(12)));
    });
  });

  describe('scatterChart', () => {
    it('has a linked <title>/<desc> and labelled axes', () => {
      const root = parseXml(scatter(POINTS));
      const [titleId, descId] = root.attrs['aria-labelledby']!.split(' ');
      expect(textOf(findAll(root, (el) => el.attrs.id === titleId)[0]!)).to.equal('Speed vs memory');
      expect(textOf(findAll(root, (el) => el.attrs.id === descId)[0]!)).to.equal('Each point is one run.');
      expect(root.attrs.viewBox).to.equal('0 0 720 400');
      expect(root.attrs.width).to.equal('100%');
      expect(root.attrs.preserveAspectRatio).to.equal('xMinYMin meet');
      const axisTitles = findAll(root, (el) => hasClass(el, 'chart-axis-title')).map(textOf);
      expect(axisTitles).to.deep.equal(['memory (GB)', 'output tok/s']);
    });

    it('draws one mark per finite, non-negative point', () => {
      const root = parseXml(scatter(POINTS));
      const marks = pointMarks(root);
      const valid = POINTS.filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y) && p.x >= 0 && p.y >= 0);
      expect(marks).to.have.length(valid.length);
      expect(marks.map(titleOf).sort()).to.deep.equal(
        [
          'a: 8 memory (GB), 120 output tok/s',
          'b: 24 memory (GB), 45.5 output tok/s',
          'c: 80 memory (GB), 1,500 output tok/s (suspect)',
          'zero-x: 0 memory (GB), 12 output tok/s',
        ].sort(),
      );
    });

    it('gives suspect points the suspect class (and a legend)', () => {
      const root = parseXml(scatter(POINTS));
      const suspect = findAll(root, (el) => el.attrs.class === 'chart-point-suspect');
      expect(suspect).to.have.length(1);
      expect(titleOf(suspect[0]!)).to.match(/^c: /);
      const normal = findAll(root, (el) => el.attrs.class === 'chart-point');
      expect(normal.map(titleOf).some((t) => t?.includes('suspect'))).to.equal(false);
      expect(findAll(root, (el) => hasClass(el, 'chart-legend'))).to.have.length(1);
      const noSuspects = parseXml(scatter(POINTS.filter((p) => !p.suspect)));
      expect(findAll(noSuspects, (el) => hasClass(el, 'chart-point-suspect'))).to.have.length(0);
      expect(findAll(noSuspects, (el) => hasClass(el, 'chart-legend'))).to.have.length(0);
    });

    it('wraps linked points in <a href>', () => {
      const root = parseXml(scatter(POINTS));
      const links = findAll(root, (el) => el.name === 'a');
      expect(links).to.have.length(1);
      expect(links[0]!.attrs.href).to.equal('/runs/1');
      expect(links[0]!.children.some((n) => typeof n !== 'string' && n.attrs.class === 'chart-point')).to.equal(true);
      expect(root.attrs.role).to.equal('group');
      expect(parseXml(scatter(POINTS.map(({ href: _href, ...point }) => point))).attrs.role).to.equal('img');
    });

    it('uses 1-2-5 ticks on a log x axis and skips non-positive x', () => {
      const data: PointDatum[] = [
        { x: 1.5, y: 10, label: 'p1' },
        { x: 7, y: 20, label: 'p2' },
        { x: 70, y: 30, label: 'p3' },
        { x: 0, y: 30, label: 'zero' },
        { x: -3, y: 30, label: 'neg' },
      ];
      const root = parseXml(scatter(data, { xLog: true }));
      expect(pointMarks(root)).to.have.length(3);
      const axes = findAll(root, (el) => hasClass(el, 'chart-axes'))[0]!;
      const tickTexts = findAll(axes, (el) => el.name === 'text' && hasClass(el, 'chart-label'));
      // x tick labels are the centred ones (y ticks are end-anchored).
      const xTicks = tickTexts.filter((t) => t.attrs['text-anchor'] === 'middle').map(textOf);
      expect(xTicks).to.deep.equal(['1', '2', '5', '10', '20', '50', '100']);
      const xs = tickTexts.filter((t) => t.attrs['text-anchor'] === 'middle').map((t) => Number(t.attrs.x));
      // Equal spacing per decade: 1 -> 10 spans the same width as 10 -> 100.
      expect(xs[3]! - xs[0]!).to.be.closeTo(xs[6]! - xs[3]!, 0.2);
      expect(findAll(root, (el) => hasClass(el, 'chart-axis-title')).map(textOf)[0]).to.equal('memory (GB) (log scale)');
    });

    it('places points inside the plot in the right order', () => {
      const root = parseXml(
        scatter([
          { x: 1, y: 1, label: 'low' },
          { x: 10, y: 100, label: 'high' },
        ]),
      );
      const [low, high] = pointMarks(root);
      expect(Number(high!.attrs.cx)).to.be.greaterThan(Number(low!.attrs.cx));
      expect(Number(high!.attrs.cy)).to.be.lessThan(Number(low!.attrs.cy));
    });

    it('renders "No data" for empty data or when nothing survives filtering', () => {
      for (const svg of [scatter([]), scatter([{ x: 0, y: 3, label: 'zero' }], { xLog: true })]) {
        const root = parseXml(svg);
        expect(findAll(root, (el) => el.name === 'title')).to.have.length(1);
        expect(findAll(root, (el) => el.name === 'desc')).to.have.length(1);
        expect(findAll(root, (el) => el.name === 'text').map(textOf)).to.deep.equal(['No data']);
        expect(pointMarks(root)).to.have.length(0);
      }
    });

    it('escapes point labels and axis titles', () => {
      const svg = scatter([{ x: 1, y: 2, label: '<script>x</script> & co' }], {
        xLabel: 'mem <GB>',
        yLabel: 'tok & s',
      });
      expect(svg).to.not.include('<script');
      expect(svg).to.not.include('<GB>');
      const root = parseXml(svg);
      expect(titleOf(pointMarks(root)[0]!)).to.equal('<script>x</script> & co: 1 mem <GB>, 2 tok & s');
    });

    it('is deterministic', () => {
      expect(scatter(POINTS, { xLog: true })).to.equal(scatter(POINTS, { xLog: true }));
    });

    describe('with series', () => {
      const marksOf = (root: XmlElement) => findAll(root, (el) => /\bchart-point(-suspect)? chart-series-\d\b/.test(el.attrs.class ?? ''));

      it('colours and shapes each series differently', () => {
        const root = parseXml(scatter(SERIES_POINTS, { xLog: true, series: SERIES }));
        const marks = marksOf(root);
        expect(marks).to.have.length(SERIES_POINTS.length);
        const byTitle = (start: string) => marks.find((m) => titleOf(m)!.startsWith(start))!;
        expect(byTitle('RTX 4090 run').attrs.class).to.equal('chart-point chart-series-0');
        expect(byTitle('RTX 4090 run').name).to.equal('circle');
        expect(byTitle('M4 Max run').attrs.class).to.equal('chart-point chart-series-1');
        expect(byTitle('M4 Max run').name).to.equal('path');
        expect(byTitle('EPYC run').attrs.class).to.equal('chart-point chart-series-2');
        // A series not listed follows the listed ones, named by its key.
        expect(byTitle('mystery').attrs.class).to.equal('chart-point chart-series-3');
        const shapes = new Set(
          ['RTX 4090 run', 'M4 Max run', 'EPYC run', 'mystery'].map((t) =>
            byTitle(t).attrs.d ? byTitle(t).attrs.d!.replace(/[\d.\s-]+/g, '') : 'circle',
          ),
        );
        expect(shapes.size).to.equal(4);
        expect(titleOf(byTitle('M4 Max run'))).to.equal('M4 Max run: 128 memory (GB), 90 output tok/s · Unified memory');
      });

      it('draws suspect points hollow in their series and names every series in a legend', () => {
        const root = parseXml(scatter(SERIES_POINTS, { xLog: true, series: SERIES }));
        const suspect = marksOf(root).find((m) => titleOf(m)!.startsWith('too fast'))!;
        expect(suspect.attrs.class).to.equal('chart-point-suspect chart-series-1');
        expect(suspect.attrs.fill).to.equal('none');
        expect(suspect.attrs.stroke).to.equal('currentColor');
        const legend = findAll(root, (el) => hasClass(el, 'chart-legend'));
        expect(legend).to.have.length(1);
        expect(findAll(legend[0]!, (el) => el.name === 'text').map(textOf)).to.deep.equal([
          'Discrete GPU',
          'Unified memory',
          'CPU only',
          'NPU',
          'hollow: suspect',
        ]);
        // Only series present in the data are listed.
        const gpuOnly = parseXml(
          scatter(
            SERIES_POINTS.filter((p) => p.series === 'GPU'),
            { xLog: true, series: SERIES },
          ),
        );
        expect(
          findAll(gpuOnly, (el) => el.name === 'text' && hasClass(el, 'chart-label') && textOf(el) === 'Unified memory'),
        ).to.have.length(0);
      });

      it('labels the leading points beside them, without overlaps', () => {
        const root = parseXml(scatter(SERIES_POINTS, { xLog: true, series: SERIES, directLabels: 3 }));
        const labels = findAll(root, (el) => hasClass(el, 'chart-direct-label')).map(textOf);
        expect(labels).to.deep.equal(['suspect one', 'RTX 4090', '2x 3090'].filter((l) => labels.includes(l)));
        expect(labels).to.include('suspect one');
        expect(labels).to.include('RTX 4090');
        expect(labels.length).to.be.within(2, 3);
        expect(
          findAll(parseXml(scatter(SERIES_POINTS, { xLog: true, series: SERIES })), (el) => hasClass(el, 'chart-direct-label')),
        ).to.have.length(0);
        // Two points at the same place: the second label would overlap the first, so it is skipped.
        const twins = parseXml(
          scatter(
            [
              { x: 10, y: 10, label: 'one', series: 'GPU' },
              { x: 10, y: 10, label: 'two', series: 'GPU' },
            ],
            { series: SERIES, directLabels: 2 },
          ),
        );
        expect(findAll(twins, (el) => hasClass(el, 'chart-direct-label')).map(textOf)).to.deep.equal(['one']);
      });

      it('keeps its text at 11 units or more when drawn narrow', () => {
        const root = parseXml(scatter(SERIES_POINTS, { width: 340, series: SERIES, directLabels: 2 }));
        expect(root.attrs.viewBox).to.match(/^0 0 340 /);
        const sizes = findAll(root, (el) => el.name === 'text').map((el) => Number(el.attrs['font-size']));
        expect(Math.min(...sizes)).to.be.at.least(11);
      });
    });
  });

  describe('horizontalBarChart with labels above', () => {
    it('puts each label and note on lines above a full-width bar, text 11 units or more', () => {
      const root = parseXml(
        barChart(
          bars(3).map((b) => ({ ...b, note: 'llama.cpp · Q4_K_M' })),
          { labelsAbove: true, width: 340 },
        ),
      );
      const bar = findAll(root, (el) => el.name === 'rect' && hasClass(el, 'chart-bar'))[0]!;
      const label = findAll(root, (el) => el.name === 'text' && hasClass(el, 'chart-label') && el.attrs['text-anchor'] === 'start')[0]!;
      expect(Number(label.attrs.y)).to.be.lessThan(Number(bar.attrs.y));
      expect(Number(label.attrs.x)).to.be.within(Number(bar.attrs.x), Number(bar.attrs.x) + 8);
      // Without a label column the bar starts at the left edge.
      expect(Number(bar.attrs.x)).to.be.below(10);
      const sizes = findAll(root, (el) => el.name === 'text').map((el) => Number(el.attrs['font-size']));
      expect(Math.min(...sizes)).to.be.at.least(11);
      const side = parseXml(barChart(bars(3)));
      expect(Number(findAll(side, (el) => el.name === 'rect' && hasClass(el, 'chart-bar'))[0]!.attrs.x)).to.be.above(40);
    });
  });

  describe('all outputs', () => {
    it('are well-formed XML', () => {
      for (const svg of allOutputs()) expect(() => parseXml(svg)).to.not.throw();
    });

    it('the well-formedness check itself rejects broken markup', () => {
      expect(() => parseXml('<svg><g></svg>')).to.throw();
      expect(() => parseXml('<svg><text>a < b</text></svg>')).to.throw();
      expect(() => parseXml('<svg><text>a & b</text></svg>')).to.throw();
      expect(() => parseXml('<svg a="1" a="2"/>')).to.throw();
      expect(() => parseXml('<svg a=1/>')).to.throw();
      expect(() => parseXml('<svg/><svg/>')).to.throw();
      expect(() => parseXml('<svg><g/></svg>')).to.not.throw();
    });

    it('contain no style attributes, <style> or <script> elements', () => {
      for (const svg of allOutputs()) {
        expect(svg).to.not.match(/\sstyle\s*=/i);
        expect(svg).to.not.match(/<style/i);
        expect(svg).to.not.match(/<script/i);
        const root = parseXml(svg);
        expect(findAll(root, (el) => 'style' in el.attrs || el.name === 'style')).to.have.length(0);
      }
    });

    it('round coordinates to at most one decimal', () => {
      const coordinateAttrs = ['x', 'y', 'x1', 'y1', 'x2', 'y2', 'cx', 'cy', 'r', 'width', 'height'];
      for (const svg of allOutputs()) {
        const root = parseXml(svg);
        walk(root, (el) => {
          if (el.name === 'svg') return;
          for (const name of coordinateAttrs) {
            const v = el.attrs[name];
            if (v !== undefined) expect(v, `${el.name}.${name}`).to.match(/^-?\d+(\.\d)?$/);
          }
          if (el.attrs.d !== undefined) {
            for (const n of el.attrs.d.match(/-?\d+(\.\d+)?/g) ?? []) expect(n).to.match(/^-?\d+(\.\d)?$/);
          }
        });
        for (const n of root.attrs.viewBox!.split(' ')) expect(n).to.match(/^\d+(\.\d)?$/);
      }
    });

    it('use only currentColor as a paint (colours come from CSS classes)', () => {
      for (const svg of allOutputs()) {
        const root = parseXml(svg);
        walk(root, (el) => {
          for (const name of ['fill', 'stroke']) {
            const v = el.attrs[name];
            // "none": the hollow marks of suspect points in a scatter with series.
            if (v !== undefined) expect(['currentColor', 'none']).to.include(v);
          }
        });
      }
    });
  });
});
