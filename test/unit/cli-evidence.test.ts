import { createHash } from 'node:crypto';
import { expect } from 'chai';
import type { DepthResult, RoundFigures, StreamedText } from '../../src/cli/llm-bench/measure.ts';
import { stat } from '../../src/cli/llm-bench/measure.ts';
import { evidenceOf } from '../../src/cli/llm-bench/payload.ts';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** A measurement of `rates.length` rounds, each round's stream with its own prompt, output and llama.cpp timings. */
function measured(
  rates: number[],
  rawOf: (index: number) => Record<string, unknown> = (i) => ({ predicted_per_second: rates[i] }),
): DepthResult {
  const rounds: RoundFigures[] = rates.map((rate) => ({
    ttftMs: 100,
    decodeTokS: rate,
    prefillTokS: 500,
    e2eMs: 1000,
    totalTokS: rate,
    promptTokens: 50,
    outputTokens: 64,
    contextTokens: 0,
    engineDecodeTokS: rate,
  }));
  const streamed: StreamedText[] = rates.map((_, index) => ({
    prompt: `nonce-${index} prompt`,
    output: `output ${index}`,
    engine: { source: 'llama.cpp timings', decodeTokens: 64, decodeMs: 500, raw: rawOf(index) },
  }));
  return {
    depth: 0,
    rounds,
    stats: { decodeTokS: stat(rates)!, ttftMs: stat(rates.map(() => 100))! },
    promptTokens: 50,
    outputTokens: 64,
    contextTokens: 0,
    tokenCounts: 'server',
    engineTimings: 'llama.cpp timings',
    streamed,
  };
}

describe('llm-bench evidence (evidenceOf)', () => {
  it('pins the stream of the round nearest the median and sends its engine timings, every round as a sample', () => {
    const evidence = evidenceOf(measured([90, 120, 100]), 1) as Record<string, any>;
    expect(evidence.promptSha256).to.equal(sha256('nonce-2 prompt'));
    expect(evidence.promptSample).to.equal('nonce-2 prompt');
    expect(evidence.outputSha256).to.equal(sha256('output 2'));
    expect(evidence.engineTimingsRaw.timings).to.deep.equal({ predicted_per_second: 100 });
    expect(evidence.engineTimingsRaw.perIteration).to.deep.equal([90, 120, 100].map((rate) => ({ predicted_per_second: rate })));
    expect(evidence.samples.map((sample: { tokSOut: number }) => sample.tokSOut)).to.deep.equal([90, 120, 100]);
    expect(evidence.samples[0].promptSha256).to.equal(sha256('nonce-0 prompt'));
    expect(evidence.sampleStats).to.deep.include({ iterations: 3, concurrency: 1 });
    expect(evidence.sampleStats.decodeTokS).to.deep.equal({ median: 100, min: 90, max: 120, spreadPct: 30 });
  });

  it('keeps 100 samples, leaves the per-request timings out of an aggregate run, and never sends more than 64 KB of timings', () => {
    const many = evidenceOf(measured(Array.from({ length: 150 }, (_, i) => 100 + (i % 7))), 1) as Record<string, any>;
    expect(many.samples).to.have.length(100);
    expect(many.sampleStats.iterations).to.equal(150);
    const aggregate = evidenceOf(measured([100, 101, 102]), 4) as Record<string, any>;
    expect(aggregate.engineTimingsRaw).to.have.keys('source', 'streams', 'perIteration');
    // Timings of 2 KB per round: the iterations no longer fit, the chosen round's alone does.
    const big = evidenceOf(
      measured(
        [
          100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125,
          126, 127, 128, 129, 130, 131, 132, 133, 134, 135,
        ],
        () => ({ predicted_per_second: 100, extra: 'x'.repeat(2000) }),
      ),
      1,
    ) as Record<string, any>;
    expect(big.engineTimingsRaw).to.have.keys('source', 'timings');
    const huge = evidenceOf(
      measured([100], () => ({ extra: 'x'.repeat(70_000) })),
      1,
    ) as Record<string, any>;
    expect(huge).not.to.have.property('engineTimingsRaw');
    expect(huge.promptSha256).to.equal(sha256('nonce-0 prompt'));
  });
});
