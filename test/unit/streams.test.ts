/**
 * Throughput runs on the pages (issue 16, part 1): a run's aggregate active sequences as
 * the `active_sequences` column and revision 3's batchSize bucket count them, and the
 * "×N streams" mark on rows and chart points.
 */
import { expect } from 'chai';
import { activeSequences, streamsLabel } from '../../src/lib/labels.ts';
import { bestByHardwareChart, speedVersusMemoryChart } from '../../src/runs/presentation/charts.ts';

describe('activeSequences and streamsLabel', () => {
  const cases: [string, Record<string, unknown>, number][] = [
    ['no batch, no flags: one stream', {}, 1],
    ['batch 1 without flags', { batchSize: 1, engineFlags: null }, 1],
    ['batch 16', { batchSize: 16 }, 16],
    ['batch 1 x concurrency 8', { batchSize: 1, engineFlags: { concurrency: 8 } }, 8],
    ['numParallel when concurrency is absent', { batchSize: 2, engineFlags: { numParallel: 4 } }, 8],
    ['concurrency wins over numParallel', { batchSize: 2, engineFlags: { concurrency: 3, numParallel: 4 } }, 6],
    ['concurrency 1 is single-stream', { batchSize: 1, engineFlags: { concurrency: 1 } }, 1],
    ['values that are not whole positive numbers count as absent', { batchSize: 0, engineFlags: { concurrency: '8' } }, 1],
  ];
  for (const [name, run, n] of cases) {
    it(name, () => {
      expect(activeSequences(run)).to.equal(n);
      expect(streamsLabel(run)).to.equal(n > 1 ? `×${n} streams` : '');
    });
  }
});

describe('charts mark throughput runs', () => {
  const run = (id: string, tokSOut: number, extra: Record<string, unknown>) => ({
    id,
    tokSOut,
    engineName: 'vllm',
    quantization: 'fp8',
    model: { displayName: 'Dense-7B' },
    hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'RTX 4090', vramGb: 24, totalVramGb: 24 },
    ...extra,
  });
  const runs = [run('a', 410, { batchSize: 1, engineFlags: { concurrency: 8 } }), run('b', 60, { batchSize: 1 })];

  it('says a point is the aggregate of N streams', () => {
    const svg = speedVersusMemoryChart(runs, 'a test');
    expect(svg).to.include('410 tok/s (×8 streams, aggregate)');
    expect(svg).to.include('RTX 4090 · 24 GB: 60 tok/s:');
    expect(svg).not.to.include('60 tok/s (');
  });

  it('notes the streams on a bar', () => {
    const svg = bestByHardwareChart(runs, 'a test');
    expect(svg).to.include('vllm · fp8 · ×8 streams');
    expect(svg).to.include('vllm · fp8<');
  });
});
