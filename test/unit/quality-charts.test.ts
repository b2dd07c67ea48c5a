/**
 * The quality pages' pure pieces: the aggregate's standard error, error bars on the bar
 * chart, and the two quality charts built on the shared SVG charts.
 */
import { expect } from 'chai';
import { aggregateStandardError } from '../../src/lib/quality-scoring.ts';
import { qualityVersusSpeedChart, scoreByQuantizationChart, scoreText, type QualityChartRun } from '../../src/web/charts/quality-charts.ts';
import { horizontalBarChart } from '../../src/web/charts/svg-charts.ts';

const GPU = { hwClass: 'DISCRETE_GPU', gpuName: 'RTX 4090', vramGb: 24 };
const run = (id: string, score: number, extra: Partial<QualityChartRun & { bestTokSOut: number | null }> = {}) => ({
  id,
  score,
  scoreStdError: null,
  quantization: 'Q4_K_M',
  model: { displayName: 'Dense-7B' },
  hardware: GPU,
  bestTokSOut: null,
  ...extra,
});
const count = (text: string, needle: string) => text.split(needle).length - 1;

describe('aggregateStandardError', () => {
  it('weights each task standard error by its share of the weight', () => {
    // sqrt((3/4)^2 0.1^2 + (1/4)^2 0.2^2) = sqrt(0.005625 + 0.0025)
    const se = aggregateStandardError(
      [
        { weight: 3, stdError: 0.1 },
        { weight: 1, stdError: 0.2 },
      ],
      'weighted_mean',
    );
    expect(se).to.be.closeTo(Math.sqrt(0.008125), 1e-12);
  });

  it('takes equal weights for mean, whatever the task weights say', () => {
    const se = aggregateStandardError(
      [
        { weight: 3, stdError: 0.1 },
        { weight: 1, stdError: 0.2 },
      ],
      'mean',
    );
    expect(se).to.be.closeTo(Math.sqrt(0.25 * 0.01 + 0.25 * 0.04), 1e-12);
  });

  it('is null when a task has none, for min and max, and without tasks', () => {
    expect(
      aggregateStandardError(
        [
          { weight: 1, stdError: 0.1 },
          { weight: 1, stdError: null },
        ],
        'weighted_mean',
      ),
    ).to.equal(null);
    expect(aggregateStandardError([{ weight: 1, stdError: 0.1 }], 'min')).to.equal(null);
    expect(aggregateStandardError([{ weight: 1, stdError: 0.1 }], 'max')).to.equal(null);
    expect(aggregateStandardError([], 'mean')).to.equal(null);
  });

  it('is zero for tasks measured without error', () => {
    expect(
      aggregateStandardError(
        [
          { weight: 2, stdError: 0 },
          { weight: 1, stdError: 0 },
        ],
        'weighted_mean',
      ),
    ).to.equal(0);
  });
});

describe('bar chart error bars', () => {
  it('draws a whisker per bar with an error, and the value with its ±', () => {
    const svg = horizontalBarChart({
      title: 't',
      description: 'd',
      valueLabel: 'score',
      data: [
        { label: 'a', value: 50, error: 5 },
        { label: 'b', value: 40 },
        { label: 'c', value: 30, error: Number.NaN },
      ],
    });
    expect(count(svg, 'class="chart-error"')).to.equal(1);
    expect(svg).to.include('>50 ± 5</text>').and.include('>40</text>').and.include('>30</text>');
    expect(svg).to.include('<title>a: 50 ± 5 score</title>');
  });

  it('sizes the axis to the end of the whisker and starts it at zero', () => {
    const svg = horizontalBarChart({ title: 't', description: 'd', valueLabel: 'score', data: [{ label: 'a', value: 95, error: 10 }] });
    // 95 + 10 = 105 needs a tick past 100; the whisker's low end 85 sits inside.
    expect(svg).to.match(/>1[12]0<\/text>/);
    const whisker = /class="chart-error" d="M([\d.]+) [\d.]+H([\d.]+)/.exec(svg)!;
    expect(Number(whisker[1])).to.be.below(Number(whisker[2]));
  });
});

describe('quality charts', () => {
  it('quality vs speed: a point per run with a speed, none for the others', () => {
    const svg = qualityVersusSpeedChart(
      [run('r1', 80, { bestTokSOut: 120 }), run('r2', 60, { bestTokSOut: 30 }), run('r3', 70, { bestTokSOut: null })],
      'Suite <One>',
    );
    expect(svg).to.match(/<title id="[^"]+">Quality vs speed<\/title>/);
    expect(count(svg, 'class="chart-point ')).to.equal(2);
    expect(svg).to.include('href="/evals/runs/r1"').and.include('href="/evals/runs/r2"').and.not.include('/evals/runs/r3');
    expect(svg).to.include('Suite &lt;One&gt;').and.include('best output tok/s (log scale)');
    // Coloured by hardware class with a legend, and the leading points named beside them.
    expect(svg).to.include('class="chart-legend"').and.include('chart-series-');
    expect(svg).to.match(/class="chart-direct-label[^"]*"[^>]*>[^<]*80(\.0)?</);
  });

  it('quality vs speed without any speed is the empty chart, still titled', () => {
    const svg = qualityVersusSpeedChart([run('r1', 80, { bestTokSOut: null })], 'S');
    expect(svg).to.include('>Quality vs speed</title>').and.include('No data').and.not.include('<circle');
  });

  it('score by quantization: a bar per run, error bars where the score has a standard error', () => {
    const svg = scoreByQuantizationChart(
      [run('a', 70, { scoreStdError: 2.5 }), run('b', 65, { quantization: 'Q2_K' }), run('c', 60, { quantization: null })],
      'S',
      'M',
    );
    expect(count(svg, 'class="chart-bar"')).to.equal(3);
    expect(count(svg, 'class="chart-error"')).to.equal(1);
    expect(svg).to.include('>Q4_K_M</text>').and.include('>Q2_K</text>').and.include('>not given</text>');
    expect(svg).to.include('>70 ± 2.5</text>');
  });

  it('scoreText shows the standard error when there is one', () => {
    expect(scoreText(81.25, 3.04)).to.equal('81.3 ± 3');
    expect(scoreText(81.25, null)).to.equal('81.3');
  });
});
