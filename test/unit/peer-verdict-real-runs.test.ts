/**
 * The peer rule (src/lib/peer-verdict.ts) measured on real published runs (issue 34): on a
 * board loaded with LocalScore's 1,017 public results of its four models (each by its own
 * user), every run is judged as an honest copy and as a copy with its decode tok/s doubled,
 * against all the other runs (the original stays on the board as the doubled copy's peer),
 * through the shipped `judgeRun`, `peerKeysOf` and `runVerdict` (test/helpers/peer-evaluation.ts).
 *
 * Targets: honest copies flagged (`outlier` or `suspect`) <= 2%, doubled copies flagged
 * >= 75%. The device evidence for lonely setups is measured on its own too: doubled copies
 * of runs alone in their setup judged without the original, and the honest lonely runs it
 * flags. The older set (test/fixtures/real-runs/runs.ts) is judged the same way in
 * test/unit/plausibility-real-runs.test.ts, whose models need the catalogue.
 */
import { expect } from 'chai';
import { PEER_RULE } from '../../src/lib/peer-verdict.ts';
import { normaliseHardware } from '../../src/runs/submission/normalise.ts';
import { peerKeysOf } from '../../src/runs/submission/verdict.ts';
import { localScoreRuns, SOURCE, verdict } from '../helpers/real-runs.ts';
import { type BoardFigures, type BoardRun, describeBoard, judgeOnBoard } from '../helpers/peer-evaluation.ts';

function boardOf(): BoardRun[] {
  return localScoreRuns().map((run) => {
    const keys = peerKeysOf({
      weightsId: run.modelName,
      quantization: run.quantization,
      batchSize: 1,
      engineFlags: null,
      hardware: normaliseHardware(run.hardware),
    })!;
    return { id: run.testNum, ...keys, tokSOut: run.tokSOut, at1x: verdict(run, 1), at2x: verdict(run, 2) };
  });
}

describe('peer verdicts on LocalScore public results, a board of 1,000+ real runs', function () {
  this.timeout(60_000);
  let board: BoardRun[];
  let shipped: BoardFigures;
  let withoutDevice: BoardFigures;

  before(() => {
    board = boardOf();
    shipped = judgeOnBoard(board);
    withoutDevice = judgeOnBoard(board, { crossModel: false });
    console.log(`\n${describeBoard(`      LocalScore board (${SOURCE})`, shipped, withoutDevice)}\n`);
  });

  it('holds 1,000+ runs, each with its own source row', () => {
    expect(board.length).to.be.at.least(1000);
    expect(new Set(board.map((run) => run.id)).size).to.equal(board.length);
  });

  it('flags at most 2% of honest copies', () => {
    expect(shipped.honestFlagged / shipped.runs).to.be.at.most(0.02);
  });

  it('flags at least 75% of copies with the decode speed doubled, most of them as outliers of their peers', () => {
    expect(shipped.doubledFlagged / shipped.runs).to.be.at.least(0.75);
    // The bound alone flags about a fifth: without the peer rule this fails.
    expect(shipped.doubledByBound / shipped.runs).to.be.below(0.25);
    expect(shipped.doubledByPeers).to.be.above(shipped.doubledByBound);
  });

  it('the device evidence flags more doubled runs of lonely setups than the bound, at no more than 1% of honest lonely runs', () => {
    expect(shipped.lonelyJudged).to.be.at.least(100);
    expect(shipped.lonelyDoubledFlagged).to.be.at.least(2 * shipped.lonelyDoubledByBound);
    expect(shipped.lonelyHonestFlagged / shipped.lonely).to.be.at.most(0.01);
    // It costs the honest figure at most what it flags among lonely runs.
    expect(shipped.honestFlagged - withoutDevice.honestFlagged).to.equal(shipped.honestFlaggedByDevice);
  });

  it('never calls a run an outlier for lack of peers: a run alone on its device is judged by the bound only', () => {
    const first = board[0]!;
    const alone = judgeOnBoard([{ ...first, tokSOut: first.tokSOut }]);
    expect(alone.honestFlagged).to.equal(first.at1x.plausibility === 'suspect' ? 1 : 0);
    expect(PEER_RULE.setupFactor).to.be.below(2);
  });
});
