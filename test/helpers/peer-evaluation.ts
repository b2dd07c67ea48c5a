/**
 * The board experiment behind the peer rule's figures (issue 34): every real run is judged
 * (a) as an honest copy and (b) with its decode tok/s doubled, each against a board holding
 * all the other real runs, each by its own user, through the shipped `judgeRun`. For (b)
 * the original stays on the board as a peer. A third judgement measures the device
 * evidence alone: the doubled copy of a run whose setup has no other run, judged without its
 * original (a cheat on a setup nobody else has published).
 */
import { judgeRun, type PeerEvidence, type PeerRun, type VerdictObject } from '../../src/lib/peer-verdict.ts';
import type { RooflineVerdict } from '../../src/lib/roofline.ts';

export interface BoardRun {
  id: string;
  /** Same weights (base model and quantization), device and card count. */
  setupKey: string;
  /** Same resolved device and card count. */
  deviceKey: string;
  tokSOut: number;
  /** The roofline at the run's own speed and at twice it. */
  at1x: RooflineVerdict;
  at2x: RooflineVerdict;
}

const flagged = (verdict: VerdictObject) => verdict.verdict === 'suspect' || verdict.verdict === 'outlier';

export interface BoardFigures {
  runs: number;
  setups: number;
  lonely: number;
  honestFlagged: number;
  /** Honest runs flagged by the device evidence (lonely runs only). */
  honestFlaggedByDevice: number;
  doubledFlagged: number;
  doubledByBound: number;
  doubledByPeers: number;
  /** Lonely runs (no other run of their setup): doubled copies judged without the original. */
  lonelyJudged: number;
  lonelyDoubledByBound: number;
  lonelyDoubledFlagged: number;
  lonelyHonestFlagged: number;
  honestExamples: string[];
}

/**
 * Judges every run of `runs` on the board of the others. `crossModel: false` leaves the
 * device evidence out (what the setup peers and the bound do alone).
 */
export function judgeOnBoard(runs: readonly BoardRun[], options: { crossModel: boolean } = { crossModel: true }): BoardFigures {
  const bySetup = new Map<string, BoardRun[]>();
  const byDevice = new Map<string, BoardRun[]>();
  for (const run of runs) {
    bySetup.set(run.setupKey, [...(bySetup.get(run.setupKey) ?? []), run]);
    byDevice.set(run.deviceKey, [...(byDevice.get(run.deviceKey) ?? []), run]);
  }
  const asPeer = (run: BoardRun): PeerRun => ({ tokSOut: run.tokSOut, decodeBoundTokS: run.at1x.boundTokS });
  const evidence = (run: BoardRun, withOriginal: boolean): PeerEvidence => ({
    setup: bySetup
      .get(run.setupKey)!
      .filter((other) => withOriginal || other !== run)
      .map(asPeer),
    device: options.crossModel
      ? byDevice
          .get(run.deviceKey)!
          .filter((other) => other.setupKey !== run.setupKey)
          .map(asPeer)
      : [],
  });
  const figures: BoardFigures = {
    runs: runs.length,
    setups: bySetup.size,
    lonely: 0,
    honestFlagged: 0,
    honestFlaggedByDevice: 0,
    doubledFlagged: 0,
    doubledByBound: 0,
    doubledByPeers: 0,
    lonelyJudged: 0,
    lonelyDoubledByBound: 0,
    lonelyDoubledFlagged: 0,
    lonelyHonestFlagged: 0,
    honestExamples: [],
  };
  for (const run of runs) {
    const honest = judgeRun({ tokSOut: run.tokSOut, roofline: run.at1x, comparable: true }, evidence(run, false));
    const doubled = judgeRun({ tokSOut: 2 * run.tokSOut, roofline: run.at2x, comparable: true }, evidence(run, true));
    if (flagged(honest)) {
      figures.honestFlagged++;
      if (honest.peers?.basis === 'device') figures.honestFlaggedByDevice++;
      figures.honestExamples.push(`${run.id} ${run.tokSOut} tok/s: ${honest.reason}`);
    }
    if (flagged(doubled)) figures.doubledFlagged++;
    if (doubled.verdict === 'suspect') figures.doubledByBound++;
    if (doubled.verdict === 'outlier') figures.doubledByPeers++;
    if (bySetup.get(run.setupKey)!.length === 1) {
      figures.lonely++;
      if (flagged(honest)) figures.lonelyHonestFlagged++;
      const alone = judgeRun({ tokSOut: 2 * run.tokSOut, roofline: run.at2x, comparable: true }, evidence(run, false));
      figures.lonelyJudged++;
      if (alone.verdict === 'suspect') figures.lonelyDoubledByBound++;
      if (flagged(alone)) figures.lonelyDoubledFlagged++;
    }
  }
  return figures;
}

export const pct = (part: number, whole: number) => (whole === 0 ? '-' : `${((100 * part) / whole).toFixed(1)}%`);

/** The figures as the test reports print them. */
export function describeBoard(name: string, withDevice: BoardFigures, withoutDevice: BoardFigures): string {
  const f = withDevice;
  return [
    `${name}: ${f.runs} runs in ${f.setups} setups (${f.lonely} alone in theirs)`,
    `  honest copies flagged: ${f.honestFlagged} = ${pct(f.honestFlagged, f.runs)} (${f.honestFlaggedByDevice} by the device evidence)`,
    `  doubled copies flagged: ${f.doubledFlagged} = ${pct(f.doubledFlagged, f.runs)} (${f.doubledByBound} by the bound, ${f.doubledByPeers} as outliers)`,
    `  without the device evidence: honest ${pct(withoutDevice.honestFlagged, f.runs)}, doubled ${pct(withoutDevice.doubledFlagged, f.runs)}`,
    `  lonely setups, doubled copy without its original: bound alone ${pct(f.lonelyDoubledByBound, f.lonelyJudged)}, with the device evidence ${pct(f.lonelyDoubledFlagged, f.lonelyJudged)}; honest lonely flagged ${pct(f.lonelyHonestFlagged, f.lonely)}`,
    ...f.honestExamples.slice(0, 25).map((line) => `    honest flagged: ${line}`),
  ].join('\n');
}
