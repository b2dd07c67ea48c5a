/**
 * Predicted speed of a setup nobody has measured (issue 38): the decode roofline of
 * src/lib/roofline.ts (bytes read per token from the active parameters and the
 * quantization's bits, over the memory bandwidth of src/lib/hardware-lookup.ts) times an
 * efficiency learned from approved single-stream runs.
 *
 * The efficiency (measured tok/s ÷ the bound) is modelled on the log scale as
 *
 *   log eff = a[class] + b[class] × (log bound − centre[class])          (fixed part)
 *           + device + device×cards×size + engine + class×quantization
 *           + device×engine + exact setup                                  (random effects)
 *           + noise (its spread per hardware class)
 *
 * The fixed part says how a hardware class loses efficiency as the bound rises (small models on
 * fast devices pay a per-token overhead); each random effect is the mean residual of its group
 * shrunk toward zero by n / (n + λ), λ = σ² / τ² estimated from the data (empirical Bayes, EM
 * on the variance components), so a group seen once moves the estimate a little and a group
 * seen often moves it to its own mean; an unseen device falls back on its class. The 80%
 * interval is the estimate × exp(± z × sd), sd² = the class's residual variance plus every
 * effect's posterior variance (τ² for a group never seen): wider where fewer runs support it.
 *
 * Prefill tok/s is modelled the same way on the compute bound (peak FP16 FLOPS ÷ 2 FLOPs per
 * active parameter), where the catalogue has the device's FP16 figure and runs report prefill.
 *
 * Pure: no I/O. The service (src/services/predictions.service.ts) and the evaluation
 * (test/unit/prediction-model.test.ts) run this same code on arrays of runs.
 */
import { deviceOf } from './hardware-devices.ts';
import {
  cardCountOf,
  cardsStreamingAtOnce,
  findDevice,
  memoryBandwidthUpperBoundOf,
  type HardwareForBandwidth,
  type ParallelismForBandwidth,
} from './hardware-lookup.ts';
import { bitsPerWeight } from './roofline.ts';

/** The hardware as a profile states it (the operating system and RAM too). */
export type PredictionHardware = HardwareForBandwidth & { os?: string | null; ramGb?: number };

/** What a prediction (or a run that teaches the model) is about. */
export interface PredictionSetup {
  hardware: PredictionHardware;
  /** Engine name and flags (they tell how many cards stream at once). */
  parallelism?: ParallelismForBandwidth;
  engineName?: string | null;
  /** The engine's backend (CUDA, Metal, Vulkan, ROCm, CPU...), when stated. */
  backend?: string | null;
  quantization: string;
  model: {
    /** The weights' identity (the base model's hub id, lower case): runs of one model share it. */
    key: string;
    paramsB: number | null;
    activeParamsB: number | null;
    isMoE: boolean;
    nativeBitsPerWeight?: number | null;
  };
}

/** A run the model learns from (approved, single-stream, plausible). */
export interface TrainingRun {
  id: string;
  setup: PredictionSetup;
  tokSOut: number;
  tokSPrefill?: number | null;
  /** Prompt tokens of the prefill measurement (prefill speed depends on it). */
  promptTokens?: number | null;
}

export type HwClass = 'DISCRETE_GPU' | 'UNIFIED' | 'CPU_ONLY';

/** The facts of a setup the model reads. */
export interface SetupFeatures {
  hwClass: HwClass;
  /** The resolved device's address (its slug). */
  device: string;
  deviceName: string;
  /** The device's vendor and market segment, from the catalogue (an unseen device leans on its kin). */
  vendor: string;
  segment: string;
  cards: number;
  /** GB/s the weights stream from in one decode step (the cards that stream at once). */
  bandwidthGBs: number;
  bits: number;
  activeB: number;
  totalB: number;
  /** GB read per token (weights). */
  gbPerToken: number;
  /** The decode roofline, tok/s. */
  decodeBound: number;
  /** The compute roofline for prefill, tok/s (null when the device's FP16 peak is not catalogued). */
  prefillBound: number | null;
  engine: string;
  quant: string;
  modelKey: string;
  /** The operating system family ('linux', 'macos', 'windows'), or 'unstated'. */
  os: string;
  /** The backend, lower case, or 'unstated'. */
  backend: string;
  /** One setup: device, cards, weights, quantization, engine. */
  setupKey: string;
  /** The same without the engine: what a prediction's track record matches later runs on. */
  weightsKey: string;
}

export type Unknown = { unknown: 'device' | 'quantization' | 'model'; reason: string };

const positive = (value: number | null | undefined): value is number => typeof value === 'number' && Number.isFinite(value) && value > 0;

const HW_CLASSES: readonly HwClass[] = ['DISCRETE_GPU', 'UNIFIED', 'CPU_ONLY'];

function deviceName(hardware: HardwareForBandwidth): string {
  if (hardware.hwClass === 'DISCRETE_GPU') return (hardware.gpus?.[0]?.gpuName ?? hardware.gpuName ?? '').trim();
  if (hardware.hwClass === 'CPU_ONLY') return (hardware.cpu ?? '').trim();
  return [hardware.chipVendor, hardware.chipFamily, hardware.chipVariant].filter(Boolean).join(' ').trim();
}

/** Engine names as people write them ('llama-cpp', 'LLaMA.cpp') read as one. */
export function engineKey(engineName: string | null | undefined): string {
  const key = (engineName ?? '')
    .trim()
    .toLowerCase()
    .replace(/[\s_-]+/g, '');
  return key === '' ? 'unstated' : key;
}

function osKey(os: string | null | undefined): string {
  const text = (os ?? '').toLowerCase();
  if (/darwin|mac|os x/.test(text)) return 'macos';
  if (/windows|win32|win64/.test(text)) return 'windows';
  if (text.trim() === '') return 'unstated';
  return 'linux';
}

/** Peak FP16 TFLOPS of the catalogue device a name stands for, or null. */
function peakFp16Of(hardware: HardwareForBandwidth): number | null {
  const found = findDevice(hardware.hwClass, deviceName(hardware));
  if (!found || found.kind === 'cpu') return null;
  const tflops = found.spec.peakFp16Tflops;
  return positive(tflops) ? tflops : null;
}

/** The features of a setup, or what about it is unknown. */
export function setupFeatures(setup: PredictionSetup): SetupFeatures | Unknown {
  const { hardware, model } = setup;
  if (!HW_CLASSES.includes(hardware.hwClass as HwClass))
    return { unknown: 'device', reason: `unknown hardware class "${hardware.hwClass}"` };
  const facts = {
    hwClass: hardware.hwClass,
    gpuName: hardware.gpus?.[0]?.gpuName ?? hardware.gpuName ?? null,
    chipVendor: hardware.chipVendor ?? null,
    chipFamily: hardware.chipFamily ?? null,
    chipVariant: hardware.chipVariant ?? null,
    cpu: hardware.cpu ?? null,
  };
  const device = deviceOf(facts);
  const parallelism = setup.parallelism ?? { engineName: setup.engineName ?? null };
  const bandwidthGBs = device.catalogue ? memoryBandwidthUpperBoundOf(hardware, parallelism) : null;
  if (!positive(bandwidthGBs))
    return { unknown: 'device', reason: `device "${deviceName(hardware) || device.name}" is not in the hardware catalogue` };
  const labelBits = bitsPerWeight(setup.quantization, setup.engineName);
  if (labelBits === null) return { unknown: 'quantization', reason: `unknown quantization "${setup.quantization.trim()}"` };
  const bits = positive(model.nativeBitsPerWeight) ? Math.min(labelBits, model.nativeBitsPerWeight) : labelBits;
  const activeB = model.isMoE ? model.activeParamsB : (model.activeParamsB ?? model.paramsB);
  if (!positive(activeB)) {
    return { unknown: 'model', reason: model.isMoE ? 'MoE model without an active-parameter count' : 'model without a parameter count' };
  }
  const totalB = positive(model.paramsB) ? Math.max(model.paramsB, activeB) : activeB;
  const gbPerToken = (activeB * bits) / 8;
  const cards = cardCountOf(hardware);
  const streaming = hardware.hwClass === 'DISCRETE_GPU' ? cardsStreamingAtOnce(parallelism, cards) : 1;
  const tflops = peakFp16Of(hardware);
  const engine = engineKey(setup.engineName ?? parallelism.engineName);
  // Spellings of one quantization ('Q4_K - Medium', 'q4_k_m') share the roofline's bits.
  const quant = `${bits.toFixed(2)}b`;
  const modelKey = model.key.trim().toLowerCase();
  return {
    hwClass: hardware.hwClass as HwClass,
    device: device.slug,
    deviceName: device.name,
    vendor: device.catalogue?.spec.vendor.toLowerCase() ?? 'unknown',
    segment: device.catalogue && 'segment' in device.catalogue.spec ? device.catalogue.spec.segment : 'chip',
    cards,
    bandwidthGBs,
    bits,
    activeB,
    totalB,
    gbPerToken,
    decodeBound: bandwidthGBs / gbPerToken,
    prefillBound: tflops === null ? null : (tflops * 1e12 * streaming) / (2 * activeB * 1e9),
    engine,
    quant,
    modelKey,
    os: osKey(hardware.os),
    backend: engineKey(setup.backend),
    setupKey: [device.slug, cards, modelKey, quant, engine].join('|'),
    weightsKey: [device.slug, cards, modelKey, quant].join('|'),
  };
}

export const isUnknown = <T extends object>(value: T | Unknown): value is Unknown => 'unknown' in value;

// ---------------------------------------------------------------------------------------
// Memory: does it fit?
// ---------------------------------------------------------------------------------------

/**
 * KV cache bytes per token of context, fp16, for a model of this many parameters when its
 * architecture is not known: grouped-query attention as current dense models use it (Llama 3.2
 * 1B 32 KB, Llama 3.1 8B 128 KB, Llama 3.1 70B 320 KB per token), fitted as 40 KB × params^0.55.
 */
export function kvBytesPerToken(totalB: number): number {
  return 40_000 * totalB ** 0.55;
}

/** Runtime buffers beside weights and cache (compute graph, context), GB. */
export const RUNTIME_OVERHEAD_GB = 0.5;

/** GB needed to hold the weights (every parameter, experts included) and the KV cache of `contextTokens` × `sequences`. */
export function memoryNeededGb(features: Pick<SetupFeatures, 'totalB' | 'bits'>, contextTokens: number, sequences = 1): number {
  const weights = (features.totalB * features.bits) / 8;
  const kv = (kvBytesPerToken(features.totalB) * Math.max(0, contextTokens) * Math.max(1, sequences)) / 1e9;
  return weights + kv + RUNTIME_OVERHEAD_GB;
}

/** Memory the device offers the model, GB: VRAM × cards, the unified memory, or the RAM; null when not stated. */
export function memoryAvailableGb(hardware: PredictionHardware): number | null {
  if (hardware.hwClass === 'DISCRETE_GPU') {
    if (hardware.gpus && hardware.gpus.length > 0)
      return hardware.gpus.reduce((sum, slot) => sum + slot.vramGb * Math.max(1, slot.count), 0);
    return positive(hardware.vramGb) ? hardware.vramGb * cardCountOf(hardware) : null;
  }
  if (hardware.hwClass === 'UNIFIED') return positive(hardware.unifiedMemoryGb) ? hardware.unifiedMemoryGb : null;
  return positive(hardware.ramGb) ? hardware.ramGb : null;
}

// ---------------------------------------------------------------------------------------
// The hierarchical fit
// ---------------------------------------------------------------------------------------

interface Observation {
  y: number;
  x: number;
  hwClass: HwClass;
  keys: string[];
}

interface FactorFit {
  effects: Map<string, { effect: number; n: number }>;
  /** σ² / τ²: how many runs it takes for a group to count as much as the prior. */
  lambda: number;
  tau2: number;
}

interface ZRange {
  low: number;
  high: number;
}

interface ClassFit {
  /** log efficiency where the overhead does not count (low bounds). */
  alpha: number;
  /** log(efficiency × per-token overhead in seconds). */
  beta: number;
  n: number;
  /** Multiplies the predictive variance so that 80% of left-out runs fall inside the 80% interval. */
  /** Where the 80% interval's ends fall, in predictive standard deviations from the estimate. */
  z: Record<'seen' | 'unseen', ZRange>;
}

export interface HierarchicalFit {
  factors: string[];
  classes: Record<HwClass, ClassFit>;
  fits: FactorFit[];
  n: number;
  /** The spread of a run around its group's effects (log scale, robust). */
  sigma2: number;
}

const EM_ROUNDS = 25;

/** Bounds in log tok/s searched for the overhead term: e^-14 to e^2. */
const OVERHEAD_GRID = { from: -14, to: 2, coarse: 1, fine: 0.1 };

function fixedPart(c: ClassFit, x: number): number {
  return c.alpha - Math.log1p(Math.exp(c.beta + x));
}
/** Prior weight (in runs) pulling a class's fixed part toward the pooled one. */
const CLASS_PRIOR_RUNS = 8;
/** Smallest variance a component or class keeps (log scale: 3% spread), so a tiny group never claims certainty. */
const MIN_VARIANCE = 0.03 ** 2;
/**
 * What is assumed before the runs say otherwise: each variance starts at a 30% spread (log
 * scale) with the weight of a few groups or runs, so a board with few runs answers with wide
 * intervals, never with a narrow guess.
 */
const PRIOR = { variance: 0.3 ** 2, weight: 3 };

/** Residuals beyond this many spreads count less (Huber weights): a run that went wrong does not move its group much. */
const HUBER_K = 1.5;

function median(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length / 2;
  return sorted.length % 2 === 1 ? sorted[Math.floor(middle)]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function quantile(values: number[], q: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** A fit in steps: it yields after each round, so a caller can let other work run between them (`fitPredictionModelAsync`). */
type Steps<T> = Generator<void, T, void>;

function* fitHierarchical(observations: Observation[], factors: string[], calibrated = true): Steps<HierarchicalFit> {
  const n = observations.length;
  const classes = {} as Record<HwClass, ClassFit>;
  const fits: FactorFit[] = factors.map(() => ({ effects: new Map(), lambda: 1, tau2: 0.05 }));
  const random = new Float64Array(n);
  const fixed = new Float64Array(n);
  const weight = new Float64Array(n).fill(1);
  let sigma2 = 0.05;
  // Each factor's groups as small integers: the backfitting runs on typed arrays.
  const groups = factors.map((_, f) => {
    const index = new Map<string, number>();
    const of = new Int32Array(n);
    for (let i = 0; i < n; i += 1) {
      const key = observations[i]!.keys[f]!;
      let g = index.get(key);
      if (g === undefined) index.set(key, (g = index.size));
      of[i] = g;
    }
    return { index, of, size: index.size, effect: new Float64Array(index.size), count: new Float64Array(index.size) };
  });

  const fitFixed = () => {
    // Pooled line first, then each class pulled toward it by CLASS_PRIOR_RUNS runs' weight.
    let sw = 0;
    let sx = 0;
    let sy = 0;
    for (let i = 0; i < n; i += 1) {
      sw += weight[i]!;
      sx += weight[i]! * observations[i]!.x;
      sy += weight[i]! * (observations[i]!.y - random[i]!);
    }
    const mx = sw > 0 ? sx / sw : 0;
    const my = sw > 0 ? sy / sw : Math.log(0.5);
    let sxy = 0;
    let sxx = 0;
    for (let i = 0; i < n; i += 1) {
      const o = observations[i]!;
      sxy += weight[i]! * (o.x - mx) * (o.y - random[i]! - my);
      sxx += weight[i]! * (o.x - mx) ** 2;
    }
    const pooledB = sxx > 0 ? sxy / sxx : 0;
    for (const hwClass of HW_CLASSES) {
      const members: number[] = [];
      for (let i = 0; i < n; i += 1) if (observations[i]!.hwClass === hwClass) members.push(i);
      const k = CLASS_PRIOR_RUNS;
      const w = members.reduce((s, i) => s + weight[i]!, 0);
      const cx = w > 0 ? members.reduce((s, i) => s + weight[i]! * observations[i]!.x, 0) / w : mx;
      const pooledAtCentre = my + pooledB * (cx - mx);
      // log eff = α − log(1 + e^(β + log bound)): a token costs bytes ÷ (eff × bandwidth) plus a
      // fixed overhead (β = log(eff × overhead)), which weighs more the higher the bound. β on a
      // grid, α in closed form, pulled toward the pooled line at the class's centre by k runs.
      const xs = members.map((i) => observations[i]!.x);
      const ys = members.map((i) => observations[i]!.y - random[i]!);
      const ws = members.map((i) => weight[i]!);
      const tryBeta = (beta: number) => {
        const overhead = xs.map((x) => Math.log1p(Math.exp(beta + x)));
        let sa = 0;
        for (let m = 0; m < xs.length; m += 1) sa += ws[m]! * (ys[m]! + overhead[m]!);
        const alpha = (sa + k * (pooledAtCentre + Math.log1p(Math.exp(beta + cx)))) / (w + k);
        let sse = 0;
        for (let m = 0; m < xs.length; m += 1) sse += ws[m]! * (ys[m]! - alpha + overhead[m]!) ** 2;
        return { sse, alpha, beta };
      };
      // Coarse, then fine around the best coarse point.
      let best = { sse: Number.POSITIVE_INFINITY, alpha: pooledAtCentre, beta: OVERHEAD_GRID.from };
      for (let beta = OVERHEAD_GRID.from; beta <= OVERHEAD_GRID.to + 1e-9; beta += OVERHEAD_GRID.coarse) {
        const tried = tryBeta(beta);
        if (tried.sse < best.sse) best = tried;
      }
      const centre = best.beta;
      for (let beta = centre - OVERHEAD_GRID.coarse; beta <= centre + OVERHEAD_GRID.coarse + 1e-9; beta += OVERHEAD_GRID.fine) {
        const tried = tryBeta(beta);
        if (tried.sse < best.sse) best = tried;
      }
      classes[hwClass] = {
        alpha: best.alpha,
        beta: best.beta,
        n: members.length,
        z: { seen: { low: -Z_80, high: Z_80 }, unseen: { low: -Z_80, high: Z_80 } },
      };
    }
    for (let i = 0; i < n; i += 1) fixed[i] = fixedPart(classes[observations[i]!.hwClass], observations[i]!.x);
  };

  for (let round = 0; round < EM_ROUNDS; round += 1) {
    fitFixed();
    // Backfit each factor on what the rest leaves, shrunk by its λ.
    for (let f = 0; f < factors.length; f += 1) {
      const fit = fits[f]!;
      const { of, size, effect, count } = groups[f]!;
      const sum = new Float64Array(size);
      const w = new Float64Array(size);
      for (let i = 0; i < n; i += 1) {
        const g = of[i]!;
        sum[g] += weight[i]! * (observations[i]!.y - fixed[i]! - random[i]! + effect[g]!);
        w[g] += weight[i]!;
      }
      let tauSum = 0;
      const next = new Float64Array(size);
      for (let g = 0; g < size; g += 1) {
        next[g] = sum[g]! / (w[g]! + fit.lambda);
        // EM: E[u²] = û² + posterior variance.
        tauSum += next[g]! * next[g]! + sigma2 / (w[g]! + fit.lambda);
      }
      for (let i = 0; i < n; i += 1) random[i] = random[i]! - effect[of[i]!]! + next[of[i]!]!;
      effect.set(next);
      count.set(w);
      fit.tau2 = Math.max(MIN_VARIANCE, (tauSum + PRIOR.weight * PRIOR.variance) / (size + PRIOR.weight));
    }
    for (const fit of fits) fit.lambda = sigma2 / fit.tau2;
    // Each run's leave-one-out residual, about r / (1 − h), h its largest share in one of its
    // groups' effects: a run alone in a group explains itself, so what it leaves unexplained
    // when left out counts. (The factors share a residual, so their shares are not added.)
    const residuals = new Float64Array(n);
    for (let i = 0; i < n; i += 1) {
      let h = 0;
      for (let f = 0; f < factors.length; f += 1) {
        const { of, count } = groups[f]!;
        h = Math.max(h, weight[i]! / (count[of[i]!]! + fits[f]!.lambda));
      }
      residuals[i] = (observations[i]!.y - fixed[i]! - random[i]!) / Math.max(0.2, 1 - h);
    }
    // σ: a robust spread (1.4826 × the median absolute leave-one-out residual).
    const absolute = Array.from(residuals, Math.abs);
    const scale = 1.4826 * median(absolute);
    sigma2 = Math.max(MIN_VARIANCE, (n * scale * scale + PRIOR.weight * PRIOR.variance) / (n + PRIOR.weight));
    const sigma = Math.sqrt(sigma2);
    for (let i = 0; i < n; i += 1) {
      const standard = absolute[i]! / sigma;
      weight[i] = standard <= HUBER_K ? 1 : HUBER_K / standard;
    }
    yield;
  }
  if (n === 0) fitFixed();
  fits.forEach((fit, f) => {
    const { index, effect, count } = groups[f]!;
    fit.effects = new Map([...index].map(([key, g]) => [key, { effect: effect[g]!, n: count[g]! }]));
  });
  const fit: HierarchicalFit = { factors, classes, fits, n, sigma2 };
  if (calibrated) yield* calibrate(fit, observations);
  return fit;
}

interface Estimate {
  mean: number;
  variance: number;
  /** The 80% interval's ends in standard deviations. */
  z: ZRange;
  /** Runs behind the most specific group that was seen (0: none of them). */
  support: number;
}

/**
 * Predictive variance of a setup whose groups hold these many runs (0: never seen): the run's
 * own spread plus each effect's posterior variance, the whole prior's for a group never seen.
 */
function predictiveVariance(fit: HierarchicalFit, counts: number[]): number {
  let variance = fit.sigma2;
  fit.fits.forEach((factor, f) => {
    const count = counts[f]!;
    variance += count > 0.5 ? fit.sigma2 / (count + factor.lambda) : factor.tau2;
  });
  return variance;
}

/** Folds of the calibration: each run is predicted once by a fit on the others' folds. */
const CALIBRATION_FOLDS = 5;

/**
 * Sets each class's variance scale so that 80% of its runs, each predicted by a fit that left
 * its fold out, fall within ±z of the predictive spread: the intervals are calibrated on how
 * the model does on runs it has not seen, wherever the board's runs put them.
 */
/** Whether a setup's device has runs in the fit: the two are calibrated apart (an unseen device is a wider guess). */
type Stratum = 'seen' | 'unseen';

function stratumOf(fit: HierarchicalFit, keys: string[]): Stratum {
  const device = fit.factors.indexOf('device');
  return device >= 0 && fit.fits[device]!.effects.has(keys[device]!) ? 'seen' : 'unseen';
}

function* calibrate(fit: HierarchicalFit, observations: Observation[]): Steps<void> {
  const standardised = new Map<string, number[]>();
  const add = (key: string, value: number) => {
    const list = standardised.get(key);
    if (list) list.push(value);
    else standardised.set(key, [value]);
  };
  if (observations.length >= 2 * CALIBRATION_FOLDS) {
    for (let fold = 0; fold < CALIBRATION_FOLDS; fold += 1) {
      const rest = yield* fitHierarchical(
        observations.filter((_, i) => i % CALIBRATION_FOLDS !== fold),
        fit.factors,
        false,
      );
      observations.forEach((o, i) => {
        if (i % CALIBRATION_FOLDS !== fold) return;
        const e = estimate(rest, o.hwClass, o.x, o.keys);
        const z = (o.y - e.mean) / Math.sqrt(e.variance);
        const stratum = stratumOf(rest, o.keys);
        for (const key of ['all', stratum, `${o.hwClass}|${stratum}`]) add(key, z);
      });
    }
  }
  // The 10% and 90% points of the left-out runs' standardised errors (the spread is not
  // symmetric: a run that went wrong is slower, rarely faster); each leans on the broader
  // group's where its runs are few (k runs' weight).
  const k = CLASS_PRIOR_RUNS;
  const tail = (INTERVAL_LEVEL + 1) / 2;
  const quantilesOf = (key: string, prior: ZRange): ZRange => {
    const own = standardised.get(key) ?? [];
    if (own.length === 0) return prior;
    const mix = (value: number, base: number) => (own.length * value + k * base) / (own.length + k);
    return { low: mix(quantile(own, 1 - tail), prior.low), high: mix(quantile(own, tail), prior.high) };
  };
  const pooled = quantilesOf('all', { low: -Z_80, high: Z_80 });
  for (const hwClass of HW_CLASSES) {
    for (const stratum of ['seen', 'unseen'] as const) {
      fit.classes[hwClass].z[stratum] = quantilesOf(`${hwClass}|${stratum}`, quantilesOf(stratum, pooled));
    }
  }
}

function estimate(fit: HierarchicalFit, hwClass: HwClass, x: number, keys: string[]): Estimate {
  const c = fit.classes[hwClass];
  let mean = fixedPart(c, x);
  let support = 0;
  const counts = fit.fits.map((factor, f) => {
    const seen = factor.effects.get(keys[f]!);
    if (!seen) return 0;
    mean += seen.effect;
    support = Math.max(support, seen.n);
    return seen.n;
  });
  return { mean, variance: predictiveVariance(fit, counts), z: c.z[stratumOf(fit, keys)], support };
}

// ---------------------------------------------------------------------------------------
// The model: decode and prefill
// ---------------------------------------------------------------------------------------

/** The random effects of decode, most general first. */
const DECODE_FACTORS = [
  'vendor',
  'segment',
  'moe',
  'device',
  'cards',
  'deviceCards',
  'deviceSize',
  'engine',
  'quant',
  'model',
  'os',
  'deviceEngine',
  'deviceBackend',
  'setup',
] as const;
const PREFILL_FACTORS = ['device', 'engine', 'deviceEngine', 'prompt', 'setup'] as const;

function sizeBin(activeB: number): number {
  return Math.round(Math.log2(activeB));
}

function decodeKeys(f: SetupFeatures): string[] {
  const device = `${f.hwClass}|${f.device}`;
  return [
    `${f.hwClass}|${f.vendor}`,
    `${f.hwClass}|${f.vendor}|${f.segment}`,
    `${f.hwClass}|${f.activeB < f.totalB ? 'moe' : 'dense'}`,
    device,
    `${f.hwClass}|${Math.min(f.cards, 8)}`,
    `${device}|${f.cards}`,
    `${device}|${f.cards}|${sizeBin(f.activeB)}`,
    f.engine,
    `${f.hwClass}|${f.quant}`,
    `${f.hwClass}|${f.modelKey}`,
    `${f.hwClass}|${f.os}`,
    `${device}|${f.engine}`,
    `${device}|${f.backend}`,
    f.setupKey,
  ];
}

function promptBin(promptTokens: number | null | undefined): string {
  return positive(promptTokens) ? String(Math.round(Math.log2(promptTokens))) : 'unstated';
}

function prefillKeys(f: SetupFeatures, promptTokens: number | null | undefined): string[] {
  const device = `${f.hwClass}|${f.device}`;
  return [device, f.engine, `${device}|${f.engine}`, promptBin(promptTokens), f.setupKey];
}

export interface PredictionModel {
  decode: HierarchicalFit;
  prefill: HierarchicalFit | null;
  /** Training runs by setup and by device, for the basis's similar runs. */
  runs: { id: string; features: SetupFeatures }[];
  bySetup: Map<string, number[]>;
  byDevice: Map<string, number[]>;
}

/** How many prefill runs it takes before prefill is predicted at all. */
const MIN_PREFILL_RUNS = 5;

/** Fits the model on approved single-stream plausible runs; runs whose setup is not understood are left out. */
export function fitPredictionModel(runs: readonly TrainingRun[]): PredictionModel {
  const steps = fitSteps(runs);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** The same fit, letting other work run between its rounds (the service's refits never hold up requests). */
export async function fitPredictionModelAsync(runs: readonly TrainingRun[]): Promise<PredictionModel> {
  const steps = fitSteps(runs);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

function* fitSteps(runs: readonly TrainingRun[]): Steps<PredictionModel> {
  const kept: { run: TrainingRun; features: SetupFeatures }[] = [];
  for (const run of runs) {
    if (!positive(run.tokSOut)) continue;
    const features = setupFeatures(run.setup);
    if (!isUnknown(features)) kept.push({ run, features });
  }
  const decode = yield* fitHierarchical(
    kept.map(({ run, features }) => ({
      y: Math.log(run.tokSOut / features.decodeBound),
      x: Math.log(features.decodeBound),
      hwClass: features.hwClass,
      keys: decodeKeys(features),
    })),
    [...DECODE_FACTORS],
  );
  const prefillRuns = kept.filter(({ run, features }) => positive(run.tokSPrefill) && features.prefillBound !== null);
  const prefill =
    prefillRuns.length >= MIN_PREFILL_RUNS
      ? yield* fitHierarchical(
          prefillRuns.map(({ run, features }) => ({
            y: Math.log(run.tokSPrefill! / features.prefillBound!),
            x: Math.log(features.prefillBound!),
            hwClass: features.hwClass,
            keys: prefillKeys(features, run.promptTokens),
          })),
          [...PREFILL_FACTORS],
        )
      : null;
  const bySetup = new Map<string, number[]>();
  const byDevice = new Map<string, number[]>();
  kept.forEach(({ features }, i) => {
    for (const [map, key] of [
      [bySetup, features.setupKey],
      [byDevice, `${features.device}|${features.cards}`],
    ] as const) {
      const list = map.get(key);
      if (list) list.push(i);
      else map.set(key, [i]);
    }
  });
  return { decode, prefill, runs: kept.map(({ run, features }) => ({ id: run.id, features })), bySetup, byDevice };
}

/** The interval's level and its normal quantile. */
export const INTERVAL_LEVEL = 0.8 as const;
const Z_80 = 1.2816;

export interface Interval {
  estimate: number;
  low: number;
  high: number;
  level: typeof INTERVAL_LEVEL;
}

export interface Prediction {
  features: SetupFeatures;
  tokSOut: Interval;
  tokSPrefill: Interval | null;
  ttftMs: Interval | null;
  /** Null when the device's memory is not stated. */
  fits: boolean | null;
  memoryNeededGb: number;
  /** The memory the answer was judged against. */
  memory: MemoryRange | null;
  basis: { method: string; runs: number; similar: string[] };
}

/** Memory the device may offer, GB (a card sold in several sizes, when the size is not stated). */
export interface MemoryRange {
  min: number;
  max: number;
}

/** Fits for sure, surely not, or null when the memory is unknown or the answer depends on which size it is. */
export function fitsIn(neededGb: number, memory: MemoryRange | null): boolean | null {
  if (!memory) return null;
  if (neededGb <= memory.min) return true;
  return neededGb > memory.max ? false : null;
}

export interface PredictOptions {
  /** Tokens of context held while decoding (the prompt so far). */
  contextDepth?: number;
  /** Sequences decoding at once: the KV cache is held for each; the speed is one stream's. */
  concurrency?: number;
  /** Memory the device offers, GB; default: what the hardware states. */
  memory?: MemoryRange | null;
}

const round = (value: number, digits: number) => {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
};

function interval(centre: number, e: Pick<Estimate, 'variance' | 'z'>, digits: number, sign: 1 | -1 = 1): Interval {
  const sd = Math.sqrt(e.variance);
  const ends = [centre + sign * e.z.low * sd, centre + sign * e.z.high * sd].sort((a, b) => a - b);
  return {
    estimate: round(Math.exp(centre), digits),
    low: round(Math.exp(ends[0]!), digits),
    high: round(Math.exp(ends[1]!), digits),
    level: INTERVAL_LEVEL,
  };
}

/** Plain words for the basis. */
export const METHOD =
  'Roofline (memory bandwidth ÷ bytes read per token) × an efficiency learned from approved single-stream runs judged plausible, by hardware class, device, card count and model size, engine and quantization, each shrunk toward the broader group where runs are few (empirical Bayes on log efficiency); the 80% interval comes from the spread of real runs around the fit, wider where fewer runs support it.';

/** Up to 5 runs the estimate leaned on most: the same setup, else the same device and cards nearest in bound. */
function similarRuns(model: PredictionModel, features: SetupFeatures): string[] {
  const same = model.bySetup.get(features.setupKey) ?? [];
  const device = (model.byDevice.get(`${features.device}|${features.cards}`) ?? []).filter((i) => !same.includes(i));
  const nearest = device
    .map((i) => ({ i, distance: Math.abs(Math.log(model.runs[i]!.features.decodeBound / features.decodeBound)) }))
    .sort((a, b) => a.distance - b.distance)
    .map(({ i }) => i);
  return [...same, ...nearest].slice(0, 5).map((i) => model.runs[i]!.id);
}

/** The prediction for a setup, or what about it is unknown. */
export function predict(model: PredictionModel, setup: PredictionSetup, options: PredictOptions = {}): Prediction | Unknown {
  const features = setupFeatures(setup);
  if (isUnknown(features)) return features;
  const depth = Math.max(0, Math.floor(options.contextDepth ?? 0));
  const sequences = Math.max(1, Math.floor(options.concurrency ?? 1));
  const decode = estimate(model.decode, features.hwClass, Math.log(features.decodeBound), decodeKeys(features));
  // Reading the KV cache at depth adds bytes per token beside the weights (the fit learned
  // speeds at shallow depth): the estimate scales by weights ÷ (weights + cache).
  const kvGb = (kvBytesPerToken(features.totalB) * depth) / 1e9;
  const depthShift = Math.log(features.gbPerToken / (features.gbPerToken + kvGb));
  const tokSOut = interval(Math.log(features.decodeBound) + decode.mean + depthShift, decode, 1);

  let tokSPrefill: Interval | null = null;
  let ttftMs: Interval | null = null;
  if (model.prefill && features.prefillBound !== null) {
    const prompt = depth > 0 ? depth : null;
    const p = estimate(model.prefill, features.hwClass, Math.log(features.prefillBound), prefillKeys(features, prompt));
    if (p.support > 0 || model.prefill.classes[features.hwClass].n > 0) {
      tokSPrefill = interval(Math.log(features.prefillBound) + p.mean, p, 1);
      if (depth > 0) {
        // TTFT = prompt tokens ÷ prefill tok/s: a slow prefill is a long wait.
        const centre = Math.log((1000 * depth) / features.prefillBound) - p.mean;
        ttftMs = interval(centre, p, 0, -1);
      }
    }
  }
  const needed = memoryNeededGb(features, depth, sequences);
  const stated = memoryAvailableGb(setup.hardware);
  const memory = options.memory !== undefined ? options.memory : stated === null ? null : { min: stated, max: stated };
  return {
    features,
    tokSOut,
    tokSPrefill,
    ttftMs,
    fits: fitsIn(needed, memory),
    memoryNeededGb: round(needed, 1),
    memory,
    basis: { method: METHOD, runs: model.decode.n, similar: similarRuns(model, features) },
  };
}

// ---------------------------------------------------------------------------------------
// Scoring predictions against measurements
// ---------------------------------------------------------------------------------------

export interface ScoredPrediction {
  estimate: number;
  low: number;
  high: number;
  measured: number;
}

export interface TrackRecord {
  /** Predictions later measured. */
  count: number;
  /** Median of |estimate − measured| ÷ measured (a fraction), null without any. */
  medianAbsError: number | null;
  /** Share of measurements inside the predicted 80% interval, null without any. */
  intervalHitRate: number | null;
}

/** How well predictions matched what was measured later (the API's `trackRecord`, and the evaluation). */
export function trackRecordOf(scored: readonly ScoredPrediction[]): TrackRecord {
  const valid = scored.filter((s) => positive(s.measured) && positive(s.estimate));
  if (valid.length === 0) return { count: 0, medianAbsError: null, intervalHitRate: null };
  const errors = valid.map((s) => Math.abs(s.estimate - s.measured) / s.measured).sort((a, b) => a - b);
  const middle = errors.length / 2;
  const median = errors.length % 2 === 1 ? errors[Math.floor(middle)]! : (errors[middle - 1]! + errors[middle]!) / 2;
  const hits = valid.filter((s) => s.measured >= s.low && s.measured <= s.high).length;
  return { count: valid.length, medianAbsError: round(median, 4), intervalHitRate: round(hits / valid.length, 4) };
}
