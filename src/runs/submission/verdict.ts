import { createHash } from 'node:crypto';
import { cpus, gpus, unifiedChips } from '../../data/hardware-catalogue.ts';
import { lastLevelCacheUpperBoundOf, memoryBandwidthUpperBoundOf, type HardwareForBandwidth } from '../../lib/hardware-lookup.ts';
import { deviceOf, type DeviceFacts } from '../../lib/hardware-devices.ts';
import { assessPlausibility, methodology, quantizationKey, type RooflineVerdict } from '../../lib/roofline.ts';
import type { Db } from '../../db/knex.ts';
import { judgeRun, PEER_RULE, type PeerEvidence, plausibilityOf, type VerdictObject } from '../../lib/peer-verdict.ts';
import type { NormalisedSpeedTest } from './normalise.ts';

/** What the roofline needs to know about one run. */
export interface RunForVerdict {
  tokSOut: number | null;
  batchSize: number;
  quantization: string;
  /** With the split flags, tells how many cards stream at once (`cardsStreamingAtOnce`). */
  engineName: string;
  /** A llama.cpp build tells whether an unstated split is by layers (`cardsStreamingAtOnce`). */
  engineVersion?: string | null;
  engineFlags:
    | {
        concurrency?: number;
        specDecoding?: boolean;
        mtpEnabled?: boolean;
        tensorParallel?: number;
        pipelineParallel?: number;
        splitMode?: string;
      }
    | null
    | undefined;
  model: { params: number | null; active_params: number | null; is_moe: boolean; native_bits_per_weight?: number | null };
  hardware: HardwareForBandwidth;
}

/**
 * The decode-speed roofline verdict of a run. The bandwidth is the upper bound over the
 * devices that stream weights at once: every card of a tensor split, one card of a layer
 * split (src/lib/hardware-lookup.ts, `cardsStreamingAtOnce`).
 */
export function runVerdict(run: RunForVerdict): RooflineVerdict {
  const flags = run.engineFlags ?? {};
  const parallelism = { engineName: run.engineName, engineVersion: run.engineVersion, engineFlags: run.engineFlags };
  return assessPlausibility({
    tokSOut: run.tokSOut,
    batchSize: run.batchSize,
    concurrency: flags.concurrency ?? null,
    specDecoding: flags.specDecoding ?? null,
    mtpEnabled: flags.mtpEnabled ?? null,
    quantization: run.quantization,
    engineName: run.engineName,
    nativeBitsPerWeight: run.model.native_bits_per_weight ?? null,
    paramsB: run.model.params,
    activeParamsB: run.model.active_params,
    isMoE: run.model.is_moe,
    memoryBandwidthGBs: memoryBandwidthUpperBoundOf(run.hardware, parallelism),
    lastLevelCacheMb: lastLevelCacheUpperBoundOf(run.hardware, parallelism),
    hwClass: run.hardware.hwClass,
  });
}

/** What the roofline reads of a normalised submission on its model. */
function submittedRun(normalised: NormalisedSpeedTest, model: RunForVerdict['model']): RunForVerdict {
  return {
    tokSOut: normalised.tokSOut ?? null,
    batchSize: normalised.batchSize,
    quantization: normalised.quantization,
    engineName: normalised.engineName,
    engineVersion: normalised.engineVersion,
    engineFlags: normalised.engineFlags,
    model,
    hardware: normalised.hardware,
  };
}

/** The roofline verdict of a normalised submission on its catalogued model (the demo seed's). */
export function submissionVerdict(normalised: NormalisedSpeedTest, model: RunForVerdict['model']): RooflineVerdict {
  return runVerdict(submittedRun(normalised, model));
}

/** A run's verdict object with the keys that place it on the board. */
export interface JudgedVerdict extends VerdictObject {
  keys: PeerKeys | null;
}

/** The stored columns of a judged run (`plausibility` 'unknown' for 'not judged': its reason says so). */
export function verdictColumns(judged: JudgedVerdict) {
  return {
    plausibility: plausibilityOf(judged.verdict),
    decode_bound_tok_s: judged.decodeBoundTokS,
    plausibility_reason: judged.reason,
    verdict_peers: judged.peers,
    device_key: judged.keys?.deviceKey ?? null,
    setup_key: judged.keys?.setupKey ?? null,
  };
}

/** An approved run on a device's board, as the peer rule reads it. */
export interface BoardRow {
  id: string;
  user_id: string;
  setup_key: string;
  tok_s_out: number;
  decode_bound_tok_s: number | null;
}

/** The approved single-stream runs of some devices, by device key. */
export type Board = ReadonlyMap<string, readonly BoardRow[]>;

/**
 * The boards of these devices: their approved single-stream runs, suspect ones left out (a
 * run above the physical bound vouches for nobody). One indexed read per call.
 */
export async function loadBoard(db: Db, deviceKeys: readonly string[]): Promise<Board> {
  const keys = [...new Set(deviceKeys)];
  const board = new Map<string, BoardRow[]>();
  if (keys.length === 0) return board;
  const rows: (BoardRow & { device_key: string })[] = await db('speed_test_runs')
    .where('status', 'APPROVED')
    .whereIn('device_key', keys)
    .whereNot('plausibility', 'suspect')
    .where('tok_s_out', '>', 0)
    .select('id', 'user_id', 'device_key', 'setup_key', 'tok_s_out', 'decode_bound_tok_s');
  for (const row of rows) board.set(row.device_key, [...(board.get(row.device_key) ?? []), row]);
  return board;
}

/** A run's evidence on its board: other users' runs of its setup, and of other weights on its device. */
export function evidenceOn(board: Board, keys: PeerKeys, self: { id?: string | null; userId?: string | null }): PeerEvidence {
  const others = (board.get(keys.deviceKey) ?? []).filter((row) => row.id !== self.id && row.user_id !== self.userId);
  const asPeer = (row: BoardRow) => ({ tokSOut: row.tok_s_out, decodeBoundTokS: row.decode_bound_tok_s });
  return {
    setup: others.filter((row) => row.setup_key === keys.setupKey).map(asPeer),
    device: others.filter((row) => row.setup_key !== keys.setupKey).map(asPeer),
  };
}

/** The whole verdict of a run: its roofline verdict, then its peers on `board` (`judgeRun`). */
export function judgeOnStoredBoard(
  run: RunForVerdict,
  keys: PeerKeys | null,
  board: Board,
  self: { id?: string | null; userId?: string | null },
): JudgedVerdict {
  const roofline = runVerdict(run);
  const evidence = keys ? evidenceOn(board, keys, self) : { setup: [], device: [] };
  return { ...judgeRun({ tokSOut: run.tokSOut, roofline, comparable: keys !== null }, evidence), keys };
}

/** The whole verdict of a run about to be stored (or dry-run) by `userId`, on the board as it is. */
export async function judgeSubmission(
  db: Db,
  normalised: NormalisedSpeedTest,
  model: RunForVerdict['model'] & WeightsFacts,
  self: { id?: string | null; userId?: string | null },
): Promise<JudgedVerdict> {
  const run = submittedRun(normalised, model);
  const keys = peerKeysOf({ ...run, weightsId: weightsIdOf(model), hardware: normalised.hardware });
  const board = await loadBoard(db, keys ? [keys.deviceKey] : []);
  return judgeOnStoredBoard(run, keys, board, self);
}

/** A verdict as the dry-run and the run JSON show it. */
export function verdictObject(judged: VerdictObject): VerdictObject {
  return { verdict: judged.verdict, reason: judged.reason, decodeBoundTokS: judged.decodeBoundTokS, peers: judged.peers };
}

/**
 * Bump when a change of code (not of the data below) would judge any stored run
 * differently: name matching, a rule, the reason texts. Data changes (the catalogue, the
 * bits table, the factors, the methodology's words) change the fingerprint by themselves.
 */
export const VERDICT_RULES_REVISION = 5;

/** What the stored verdicts depend on besides each run's own facts; stored runs are re-judged when it changes. */
export function verdictRulesFingerprint(): string {
  const rules = { revision: VERDICT_RULES_REVISION, methodology, peerRule: PEER_RULE, catalogue: { gpus, unifiedChips, cpus } };
  return createHash('sha256').update(JSON.stringify(rules)).digest('hex');
}

/** One sequence decoding, nothing drafting: the runs the peer rule compares (`src/lib/peer-verdict.ts`). */
export function isSingleStream(batchSize: number, flags: RunForVerdict['engineFlags']): boolean {
  return batchSize === 1 && (flags?.concurrency ?? 1) === 1 && flags?.specDecoding !== true && flags?.mtpEnabled !== true;
}

/** Who counts as a run's peers: the same device and card count, and on it the same weights. */
export interface PeerKeys {
  /** Resolved device (its address), `+cpu` for a CPU-only run, and card count: `nvidia-rtx-4090×1`, `amd-ryzen-ai-max-plus-395+cpu×1`. */
  deviceKey: string;
  /** The weights (a quantized repo counts as its base) and quantization on that device. */
  setupKey: string;
}

/** What names a model's weights: its hub id, and its base when it is a quantization of it. */
export interface WeightsFacts {
  hf_id: string;
  base_hf_id: string | null;
  base_relation: string | null;
}

/** The weights a catalogued model's runs read: a quantized repo reads its base's (lower-case hub ids). */
export function weightsIdOf(model: WeightsFacts): string {
  return (model.base_relation === 'quantized' && model.base_hf_id ? model.base_hf_id : model.hf_id).toLowerCase();
}

/**
 * The peer keys of a single-stream run (null for any other run: it is neither judged by
 * peers nor a peer). `weightsId` names the weights: the base model's id for a quantized repo.
 */
export function peerKeysOf(run: {
  weightsId: string;
  quantization: string;
  batchSize: number;
  engineFlags: RunForVerdict['engineFlags'];
  hardware: DeviceFacts & { gpuCount?: number | null };
}): PeerKeys | null {
  if (!isSingleStream(run.batchSize, run.engineFlags)) return null;
  const deviceKey = deviceKeyOf(run.hardware);
  if (!deviceKey) return null;
  return { deviceKey, setupKey: `${run.weightsId}|${quantizationKey(run.quantization)}|${deviceKey}` };
}

/**
 * The resolved device and card count a run measured on (`PeerKeys.deviceKey`), whatever its
 * streams: peers are single-stream runs of one key, replications runs of one recipe on one
 * key (src/runs/submission/recipe.ts). Null when the run names no device.
 */
export function deviceKeyOf(hardware: DeviceFacts & { gpuCount?: number | null }): string | null {
  // A device nobody named is no device: runs without a name are nobody's peers.
  const { hwClass, gpuName, chipFamily, cpu } = hardware;
  const written = hwClass === 'DISCRETE_GPU' ? gpuName : hwClass === 'UNIFIED' ? chipFamily : cpu;
  if (!written?.trim()) return null;
  const cards = hardware.hwClass === 'DISCRETE_GPU' ? (hardware.gpuCount ?? 1) : 1;
  // A CPU-only run on a unified chip decodes on its CPU cores, not its GPU: another board (the real set's one such pair is 11× apart).
  const processor = hwClass === 'CPU_ONLY' ? '+cpu' : '';
  return `${deviceOf(hardware).slug}${processor}×${cards}`;
}
