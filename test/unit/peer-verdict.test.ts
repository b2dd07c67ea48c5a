/** The peer rule's cases (src/lib/peer-verdict.ts) and the board a stored run is judged on (src/runs/submission/verdict.ts). */
import { expect } from 'chai';
import { judgeRun, PEER_RULE, type PeerEvidence } from '../../src/lib/peer-verdict.ts';
import type { RooflineVerdict } from '../../src/lib/roofline.ts';
import { evidenceOn, peerKeysOf } from '../../src/runs/submission/verdict.ts';

const within: RooflineVerdict = {
  plausibility: 'plausible',
  boundTokS: 200,
  reason: 'within 1.1 × the 200.0 tok/s memory-bandwidth bound',
};
const noBound: RooflineVerdict = { plausibility: 'unknown', boundTokS: null, reason: 'unknown memory bandwidth' };
const setup = (...speeds: number[]): PeerEvidence => ({ setup: speeds.map((tokSOut) => ({ tokSOut })), device: [] });
const device = (...runs: [tokSOut: number, bound: number][]): PeerEvidence => ({
  setup: [],
  device: runs.map(([tokSOut, decodeBoundTokS]) => ({ tokSOut, decodeBoundTokS })),
});

describe('peer verdict', () => {
  it('is plausible without peers, and names no peers unless the run is an outlier', () => {
    expect(judgeRun({ tokSOut: 150, roofline: within, comparable: true }, setup())).to.deep.equal({
      verdict: 'plausible',
      reason: within.reason,
      decodeBoundTokS: 200,
      peers: null,
    });
    expect(judgeRun({ tokSOut: 100, roofline: within, comparable: true }, setup(60)).peers).to.equal(null);
  });

  it(`flags a run above ${PEER_RULE.setupFactor} × its best setup peer, and only above it`, () => {
    const outlier = judgeRun({ tokSOut: 180, roofline: within, comparable: true }, setup(40, 60));
    expect(outlier).to.include({ verdict: 'outlier', decodeBoundTokS: 200 });
    expect(outlier.peers).to.deep.equal({ count: 2, bestTokS: 60, ratio: 3, basis: 'setup' });
    expect(outlier.reason).to.equal('3 × the best of 2 approved runs of the same weights on the same device (60 tok/s), above 1.75 ×');
    expect(judgeRun({ tokSOut: 60 * PEER_RULE.setupFactor, roofline: within, comparable: true }, setup(60)).verdict).to.equal('plausible');
  });

  it('uses the device evidence only for a setup without peers, with enough runs on the device, and only against a bound', () => {
    // Best efficiency 0.4 of the bound: 200 × 0.4 = 80 tok/s expected; 150 is 1.88 × that.
    const evidence = device([40, 100], [20, 100]);
    expect(judgeRun({ tokSOut: 150, roofline: within, comparable: true }, evidence).peers).to.deep.equal({
      count: 2,
      bestTokS: 80,
      ratio: 1.88,
      basis: 'device',
    });
    expect(judgeRun({ tokSOut: 150, roofline: within, comparable: true }, device([40, 100])).verdict).to.equal('plausible');
    expect(judgeRun({ tokSOut: 150, roofline: within, comparable: true }, { ...evidence, setup: [{ tokSOut: 140 }] }).verdict).to.equal(
      'plausible',
    );
    expect(judgeRun({ tokSOut: 150, roofline: noBound, comparable: true }, evidence).verdict).to.equal('unknown');
    // Without a bound, the setup's peers still judge.
    expect(judgeRun({ tokSOut: 150, roofline: noBound, comparable: true }, setup(50)).verdict).to.equal('outlier');
  });

  it('leaves suspect and not-judged runs to the roofline, and runs that are not comparable alone', () => {
    const suspect: RooflineVerdict = { plausibility: 'suspect', boundTokS: 100, reason: 'above 1.1 × the 100.0 tok/s bound' };
    expect(judgeRun({ tokSOut: 500, roofline: suspect, comparable: true }, setup(60))).to.include({ verdict: 'suspect', peers: null });
    const speculative: RooflineVerdict = {
      plausibility: 'unknown',
      boundTokS: 100,
      reason: 'not judged: speculative decoding can accept …',
    };
    expect(judgeRun({ tokSOut: 500, roofline: speculative, comparable: true }, setup(60)).verdict).to.equal('not judged');
    expect(judgeRun({ tokSOut: 500, roofline: within, comparable: false }, setup(60)).verdict).to.equal('plausible');
  });

  it("keys peers by weights, quantization as the table reads it, device, CPU-only and cards; a run's own and its submitter's runs are not its peers", () => {
    const keys = (hardware: Record<string, unknown>, quantization = 'Q4_K_M', batchSize = 1) =>
      peerKeysOf({ weightsId: 'org/model', quantization, batchSize, engineFlags: null, hardware: hardware as never });
    const gpu = { hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA GeForce RTX 4090', gpuCount: 1 };
    expect(keys(gpu)).to.deep.equal(keys({ ...gpu, gpuName: 'RTX 4090' }, 'Q4_K - Medium'));
    expect(keys({ ...gpu, gpuCount: 2 })!.deviceKey).to.not.equal(keys(gpu)!.deviceKey);
    expect(keys({ hwClass: 'UNIFIED', chipVendor: 'AMD', chipFamily: 'Ryzen AI Max+ 395', chipVariant: '' })!.deviceKey).to.not.equal(
      keys({ hwClass: 'CPU_ONLY', cpu: 'AMD Ryzen AI Max+ 395' })!.deviceKey,
    );
    expect(keys(gpu, 'Q4_K_M', 4)).to.equal(null);
    expect(keys({ ...gpu, gpuName: ' ' })).to.equal(null);

    const own = keys(gpu)!;
    const row = (id: string, user: string, tokS: number) => ({
      id,
      user_id: user,
      setup_key: own.setupKey,
      tok_s_out: tokS,
      decode_bound_tok_s: 200,
    });
    const board = new Map([[own.deviceKey, [row('a', 'me', 100), row('b', 'me', 90), row('c', 'you', 50)]]]);
    expect(evidenceOn(board, own, { id: 'a', userId: 'me' }).setup).to.deep.equal([{ tokSOut: 50, decodeBoundTokS: 200 }]);
  });
});
