/**
 * Peer verdict: a run well above every comparable approved run on the board is an
 * `outlier` (possible, flagged for a look), beside the roofline's `suspect` (above the
 * physical bound: impossible as stated). Pure: no I/O. Stored runs (src/runs/submission/
 * verdict.ts `judgeOnStoredBoard`, used at submission, correction, dry-run and every
 * re-judging in plausibility.service.ts) and the real-data evaluation
 * (test/unit/peer-verdict-real-runs.test.ts) all judge through `judgeRun`, so the figures on
 * /methodology measure this code.
 *
 * Peers are approved single-stream runs of the same weights (base model and quantization),
 * the same resolved device and card count, by other users (a submitter's own runs cannot
 * vouch for each other). Engines are not told apart: the real set could not show that the
 * engine family changes how far above its best peer an honest run lands.
 *
 * Where a setup has no peers yet, the device's own runs of other weights are the evidence
 * (basis `device`): the run's efficiency (tok/s over its own roofline bound) against the best
 * efficiency any of them reached.
 */
import type { RooflineVerdict } from './roofline.ts';

/**
 * The thresholds, fitted on the real sets (test/fixtures/real-runs) by
 * test/unit/peer-verdict-real-runs.test.ts, which prints the figures behind them.
 */
export const PEER_RULE = Object.freeze({
  /** Outlier: above this multiple of the best peer's decode tok/s (same weights, device, cards). */
  setupFactor: 1.75,
  /** Lonely run: outlier above this multiple of the best tok/s-to-bound efficiency of the device's other runs... */
  deviceFactor: 1.7,
  /** ...when the device has at least this many other judged runs. */
  deviceMinRuns: 2,
});

/** Why each threshold is what it is (shown on /methodology). */
export const PEER_RULE_BASIS = {
  setupFactor:
    "On a board of LocalScore's 1,017 public results (each by its own user), every run judged against all the others: above 1.5 × its best peer flags 2.2% of honest runs, 1.6 × 1.7%, 1.7 × 1.6%, 1.75 × 1.5%, 1.8 × 1.4%, 1.9 × 1.3% (honest runs of one setup often land far below their best peer, rarely far above it); a copy with its decode speed doubled, the original on the board, is then flagged 89.1%, 86.7%, 84.9%, 83.1%, 80.8% and 75.5% of the time (bound included). 1.75 keeps honest runs well under 2% on a set not seen.",
  deviceFactor:
    'A run whose setup has no peer: its efficiency (tok/s ÷ its own bound) against the best efficiency of the same device on other weights. On the 377 LocalScore runs alone in their setup, 1.7 × with 2 or more other runs on the device flags 1 honest run (0.3%), and flags 36.3% of their doubled copies judged without the original on the board, where the bound alone flags 14.6%; 1.5 × flags 3 honest runs (0.8%), and any other run on the device (1 instead of 2) 6 (1.6%).',
} as const;

/** What /methodology and the agent-context say of the peer rule. */
export const peerMethodology = {
  rule: `A run within its bound is an outlier when its decode tok/s is above ${PEER_RULE.setupFactor} × the best approved single-stream run of the same weights (base model and quantization) on the same device and card count, by another user. A run whose setup has no such run yet is compared with the device's runs of other weights by efficiency (tok/s ÷ each run's own bound) and is an outlier above ${PEER_RULE.deviceFactor} × the best of them, once the device has ${PEER_RULE.deviceMinRuns} or more. The first runs of a setup on a device nobody else has used are never outliers. An outlier is possible (a tuned build, a faster memory clock) but flagged for a look; "hide suspect runs" hides outliers too.`,
  rejudging:
    "When a run joins or leaves a device's board (submitted, corrected, rejected, restored, withdrawn, or its device re-resolved by an admin's hardware-name mapping), every approved run of that device is judged again in the background, a bounded batch of devices at a time; each verdict that changes gets an audit entry.",
  thresholds: [
    { name: 'Outlier above the best peer of the same setup', value: `${PEER_RULE.setupFactor} ×`, basis: PEER_RULE_BASIS.setupFactor },
    {
      name: `Lonely setup: above the device's best efficiency (${PEER_RULE.deviceMinRuns}+ runs of other weights)`,
      value: `${PEER_RULE.deviceFactor} ×`,
      basis: PEER_RULE_BASIS.deviceFactor,
    },
  ],
  figures: [
    'LocalScore board, 1,017 runs: honest copies flagged (outlier or suspect) 1.6%; copies with the decode speed doubled flagged 83.1% (20.6% by the bound alone). The best any peer threshold reaches with honest runs at 2% or less, fitted on this set with no headroom, is about 87% (1.6 ×: honest 1.7%, doubled 86.7%).',
    "The older set of 211 single-stream runs from many sources and engines: honest 0.0%, doubled 95.3%. A CPU-only run on a unified chip (its CPU cores decode) is not a peer of the chip's GPU runs: that set's one pair of them is 11 × apart.",
    'Engines are not told apart: both sets together could not show that the engine family moves how far above its best peer an honest run lands.',
  ],
  source:
    'Measured by test/unit/peer-verdict-real-runs.test.ts and test/unit/plausibility-real-runs.test.ts on test/fixtures/real-runs, through the code that judges stored runs.',
};

export type Verdict = 'plausible' | 'suspect' | 'outlier' | 'unknown' | 'not judged';

export interface PeerComparison {
  /** How many runs the run was compared with. */
  count: number;
  /** The best of them, tok/s (for `device`: the tok/s this run would show at the device's best efficiency). */
  bestTokS: number;
  /** The run's tok/s over `bestTokS`, 2 decimals. */
  ratio: number;
  /** `setup`: same weights, device and card count; `device`: the device's runs of other weights, by efficiency against their bound. */
  basis: 'setup' | 'device';
}

export interface VerdictObject {
  verdict: Verdict;
  reason: string;
  decodeBoundTokS: number | null;
  peers: PeerComparison | null;
}

/** A comparable approved run: its decode tok/s and, for the device evidence, its own bound. */
export interface PeerRun {
  tokSOut: number;
  decodeBoundTokS?: number | null;
}

export interface PeerEvidence {
  /** Approved single-stream runs of the same setup by other users. */
  setup: readonly PeerRun[];
  /** Approved single-stream runs of the same device and card count on other weights, by other users. */
  device: readonly PeerRun[];
}

export interface JudgedRun {
  tokSOut: number | null;
  /** The roofline's verdict on the run (src/lib/roofline.ts `assessPlausibility`). */
  roofline: RooflineVerdict;
  /** False when the run is not single-stream or names no device: no peer applies. */
  comparable: boolean;
}

const round2 = (n: number) => Math.round(n * 100) / 100;
const round1 = (n: number) => Math.round(n * 10) / 10;
const positive = (n: number | null | undefined): n is number => typeof n === 'number' && Number.isFinite(n) && n > 0;

/** The peer comparison of a run, or null when nothing comparable is on the board. */
export function comparePeers(tokSOut: number, boundTokS: number | null, evidence: PeerEvidence): PeerComparison | null {
  const setup = evidence.setup.filter((peer) => positive(peer.tokSOut));
  if (setup.length > 0) {
    const best = Math.max(...setup.map((peer) => peer.tokSOut));
    return { count: setup.length, bestTokS: round1(best), ratio: round2(tokSOut / best), basis: 'setup' };
  }
  const device = evidence.device.filter((peer) => positive(peer.tokSOut) && positive(peer.decodeBoundTokS));
  if (!positive(boundTokS) || device.length < PEER_RULE.deviceMinRuns) return null;
  const bestEfficiency = Math.max(...device.map((peer) => peer.tokSOut / peer.decodeBoundTokS!));
  const best = bestEfficiency * boundTokS;
  return { count: device.length, bestTokS: round1(best), ratio: round2(tokSOut / best), basis: 'device' };
}

/** Whether a comparison makes the run an outlier. */
export function isOutlier(peers: PeerComparison): boolean {
  return peers.ratio > (peers.basis === 'setup' ? PEER_RULE.setupFactor : PEER_RULE.deviceFactor);
}

function outlierReason(peers: PeerComparison): string {
  const factor = peers.basis === 'setup' ? PEER_RULE.setupFactor : PEER_RULE.deviceFactor;
  return peers.basis === 'setup'
    ? `${peers.ratio} × the best of ${peers.count} approved run${peers.count === 1 ? '' : 's'} of the same weights on the same device (${peers.bestTokS} tok/s), above ${factor} ×`
    : `${peers.ratio} × what the device's best efficiency over ${peers.count} runs of other models gives (${peers.bestTokS} tok/s), above ${factor} ×`;
}

/**
 * The verdict object of a run: the roofline's verdict, then, for a run within its bound (or
 * without one: unknown hardware), the peer rule. `unknown` runs whose reason says they are
 * not judged read `not judged`. Only an outlier names its peers: a plausible run's verdict
 * does not change, nor its page get rewritten, each time another run of its setup arrives.
 */
export function judgeRun(run: JudgedRun, evidence: PeerEvidence): VerdictObject {
  const { roofline } = run;
  const judged = (verdict: Verdict, reason: string, peers: PeerComparison | null = null): VerdictObject => ({
    verdict,
    reason,
    decodeBoundTokS: roofline.boundTokS,
    peers,
  });
  if (roofline.plausibility === 'suspect') return judged('suspect', roofline.reason);
  const notJudged = roofline.plausibility === 'unknown' && roofline.reason.startsWith('not judged');
  if (notJudged) return judged('not judged', roofline.reason);
  const peers = run.comparable && positive(run.tokSOut) ? comparePeers(run.tokSOut, roofline.boundTokS, evidence) : null;
  // Without a bound that holds (unknown), only the setup's peers judge: the device evidence reads efficiency against the bound.
  const applies = peers !== null && (roofline.plausibility === 'plausible' || peers.basis === 'setup');
  if (applies && isOutlier(peers)) return judged('outlier', outlierReason(peers), peers);
  return judged(roofline.plausibility, roofline.reason);
}

/** The stored `plausibility` column of a verdict ('not judged' is stored as 'unknown', its reason says why). */
export function plausibilityOf(verdict: Verdict): 'plausible' | 'suspect' | 'outlier' | 'unknown' {
  return verdict === 'not judged' ? 'unknown' : verdict;
}
