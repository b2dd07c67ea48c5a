/**
 * Predictions for setups nobody has measured (issue 38; DECISIONS.md "Prediction"): the model
 * of src/lib/prediction-model.ts fitted on the board's approved single-stream runs judged
 * plausible (suspect, outlier and unknown verdicts teach it nothing), and the track record of
 * what it predicted against what was measured later.
 *
 * Refits follow the board without blocking reads (and the app's timer refreshes a loaded
 * model every REFRESH_MS, so new runs are scored without waiting for a question): the fitted model stays in memory and
 * answers every request, and a refit yields to other work after each of its rounds
 * (`fitPredictionModelAsync`, a few milliseconds each); a request more than REFRESH_MS after the last refresh starts one in the
 * background (only the very first request waits for a model). A refresh reads the runs created
 * since the newest it has (the whole set again every FULL_RELOAD_MS, which drops runs rejected,
 * withdrawn or re-judged meanwhile), scores the new ones against earlier predictions of their
 * setup, and refits when anything changed. The fit keeps the newest MAX_TRAINING_RUNS runs, so
 * its work is bounded however large the board grows.
 */
import { messages } from '../messages.ts';
import { HttpError } from '../lib/errors.ts';
import { findDevice } from '../lib/hardware-lookup.ts';
import { chipText, resolveName } from '../lib/hardware-names.ts';
import {
  fitPredictionModelAsync,
  isUnknown,
  type MemoryRange,
  predict,
  type PredictionHardware,
  type PredictionModel,
  type TrackRecord,
  type TrainingRun,
  trackRecordOf,
} from '../lib/prediction-model.ts';
import type { PredictionAnswer, PredictionQuery } from '../schemas/predictions.schema.ts';
import type { ServiceDeps } from './deps.ts';
import type { ModelsService } from './models.service.ts';

export const PREDICTION_LIMITS = {
  /** A request this long after the last refresh starts another (in the background). */
  REFRESH_MS: 30_000,
  /** The whole training set is read again this often (rejections, withdrawals, re-judged runs). */
  FULL_RELOAD_MS: 10 * 60_000,
  /** The newest runs the model is fitted on. */
  MAX_TRAINING_RUNS: 5000,
  /** Scores the track record is computed over (the newest). */
  MAX_SCORES: 5000,
};

/** What a prediction could not place, as the 422 names it. */
export class PredictionUnknown extends HttpError {
  constructor(what: 'model' | 'device' | 'quantization', message: string) {
    super(422, message, { unknown: what });
  }
}

interface TrainingRow {
  id: string;
  created_at: Date;
  tok_s_out: number;
  tok_s_prefill: number | null;
  prompt_tokens: number | null;
  quantization: string;
  backend: string | null;
  engine_flags: Record<string, unknown> | null;
  engine_name: string;
  engine_version: string | null;
  params: number | null;
  active_params: number | null;
  is_moe: boolean;
  native_bits_per_weight: number | null;
  model_key: string;
  details: PredictionHardware;
}

function trainingRun(row: TrainingRow): TrainingRun {
  const flags = row.engine_flags ?? {};
  return {
    id: row.id,
    tokSOut: Number(row.tok_s_out),
    tokSPrefill: row.tok_s_prefill === null ? null : Number(row.tok_s_prefill),
    promptTokens: row.prompt_tokens,
    setup: {
      hardware: row.details,
      parallelism: { engineName: row.engine_name, engineVersion: row.engine_version, engineFlags: flags },
      engineName: row.engine_name,
      backend: row.backend,
      quantization: row.quantization,
      model: {
        key: row.model_key,
        paramsB: row.params,
        activeParamsB: row.active_params,
        isMoE: row.is_moe,
        nativeBitsPerWeight: row.native_bits_per_weight,
      },
    },
  };
}

const sizesRange = (sizes: readonly number[] | undefined, times = 1): MemoryRange | null =>
  sizes && sizes.length > 0 ? { min: Math.min(...sizes) * times, max: Math.max(...sizes) * times } : null;

/** The hardware a query names, with the memory it may have; null when no catalogue device matches. */
export function hardwareOfQuery(query: PredictionQuery): { hardware: PredictionHardware; memory: MemoryRange | null } | null {
  const cards = query.gpuCount ?? 1;
  const exact = (gb: number | undefined, times = 1) => (gb === undefined ? null : { min: gb * times, max: gb * times });
  if (query.hardwareName !== undefined) {
    const found = resolveName(query.hardwareName, ['gpu', 'chip', 'cpu']);
    const entry = found?.entries[0];
    if (!entry) return null;
    if (entry.kind === 'gpu') {
      return {
        hardware: {
          hwClass: 'DISCRETE_GPU',
          gpuName: query.hardwareName,
          gpuCount: cards,
          ...(query.vramGb ? { vramGb: query.vramGb } : {}),
        },
        memory: exact(query.vramGb ?? found.memoryGb, cards) ?? sizesRange(entry.spec.vramGb, cards),
      };
    }
    if (entry.kind === 'chip') {
      const memoryGb = query.unifiedMemoryGb ?? found.memoryGb;
      return {
        hardware: {
          hwClass: 'UNIFIED',
          chipVendor: '',
          chipFamily: query.hardwareName,
          chipVariant: '',
          ...(memoryGb ? { unifiedMemoryGb: memoryGb } : {}),
        },
        memory: exact(memoryGb) ?? sizesRange(entry.spec.memoryGb),
      };
    }
    return {
      hardware: { hwClass: 'CPU_ONLY', cpu: query.hardwareName, ...(query.ramGb ? { ramGb: query.ramGb } : {}) },
      memory: exact(query.ramGb),
    };
  }
  switch (query.hwClass) {
    case 'DISCRETE_GPU': {
      const entry = findDevice('DISCRETE_GPU', query.gpuName ?? '');
      if (!entry) return null;
      return {
        hardware: { hwClass: 'DISCRETE_GPU', gpuName: query.gpuName!, gpuCount: cards, ...(query.vramGb ? { vramGb: query.vramGb } : {}) },
        memory:
          exact(query.vramGb, cards) ??
          (entry.kind === 'gpu' ? sizesRange(entry.spec.vramGb, cards) : entry.kind === 'chip' ? sizesRange(entry.spec.memoryGb) : null),
      };
    }
    case 'UNIFIED': {
      const [chipVendor, chipFamily, chipVariant] = [query.chipVendor ?? '', query.chipFamily ?? '', query.chipVariant ?? ''];
      const entry = findDevice('UNIFIED', chipText(chipVendor, chipFamily, chipVariant));
      if (!entry) return null;
      return {
        hardware: {
          hwClass: 'UNIFIED',
          chipVendor,
          chipFamily,
          chipVariant,
          ...(query.unifiedMemoryGb ? { unifiedMemoryGb: query.unifiedMemoryGb } : {}),
        },
        memory: exact(query.unifiedMemoryGb) ?? (entry.kind === 'chip' ? sizesRange(entry.spec.memoryGb) : null),
      };
    }
    case 'CPU_ONLY': {
      if (!findDevice('CPU_ONLY', query.cpu ?? '')) return null;
      return {
        hardware: { hwClass: 'CPU_ONLY', cpu: query.cpu!, ...(query.ramGb ? { ramGb: query.ramGb } : {}) },
        memory: exact(query.ramGb),
      };
    }
    default:
      return null;
  }
}

function deviceText(query: PredictionQuery): string {
  return (
    query.hardwareName ??
    (query.hwClass === 'UNIFIED'
      ? [query.chipVendor, query.chipFamily, query.chipVariant].filter(Boolean).join(' ')
      : query.hwClass === 'CPU_ONLY'
        ? query.cpu
        : query.gpuName) ??
    ''
  );
}

export function createPredictionsService(deps: ServiceDeps & { models: ModelsService }) {
  const { db, clock, models } = deps;
  let state: { model: PredictionModel; runs: Map<string, TrainingRun>; newest: Date | null; fullAt: number; refreshedAt: number } | null =
    null;
  let refreshing: Promise<void> | null = null;

  function trainingQuery() {
    return db('speed_test_runs as r')
      .join('models as m', 'm.id', 'r.model_id')
      .join('hardware_profiles as h', 'h.id', 'r.hardware_id')
      .join('engines as e', 'e.id', 'r.engine_id')
      .where('r.status', 'APPROVED')
      .where('r.plausibility', 'plausible')
      .where('r.active_sequences', 1)
      .where('r.spec_decoding', false)
      .where('r.mtp_enabled', false)
      .where('r.tok_s_out', '>', 0)
      .select(
        'r.id',
        'r.created_at',
        'r.tok_s_out',
        'r.tok_s_prefill',
        'r.prompt_tokens',
        'r.quantization',
        'r.backend',
        'r.engine_flags',
        'e.name as engine_name',
        'e.version as engine_version',
        'm.params',
        'm.active_params',
        'm.is_moe',
        'm.native_bits_per_weight',
        db.raw('lower(coalesce(m.base_hf_id, m.hf_id)) as model_key'),
        'h.details',
      )
      .orderBy('r.created_at', 'desc')
      .limit(PREDICTION_LIMITS.MAX_TRAINING_RUNS);
  }

  /** Records predicted against measured for new runs whose setup was predicted before they ran. */
  async function score(rows: TrainingRow[], model: PredictionModel): Promise<void> {
    const byId = new Map(model.runs.map((run) => [run.id, run.features]));
    const scored = rows.flatMap((row) => {
      const features = byId.get(row.id);
      return features
        ? [{ run_id: row.id, setup_key: features.weightsKey, measured: Number(row.tok_s_out), created_at: row.created_at }]
        : [];
    });
    if (scored.length === 0) return;
    await db.raw(
      `insert into speed_test_prediction_scores (run_id, prediction_id, estimate, low, high, measured)
       select v.run_id, p.id, p.estimate, p.low, p.high, v.measured
         from jsonb_to_recordset(?::jsonb) as v(run_id uuid, setup_key text, measured float8, created_at timestamptz)
         join lateral (select id, estimate, low, high from speed_test_predictions p
                        where p.setup_key = v.setup_key and p.created_at < v.created_at
                        order by p.created_at desc limit 1) p on true
       on conflict (run_id) do nothing`,
      [JSON.stringify(scored)],
    );
  }

  async function refreshNow(): Promise<void> {
    const now = clock.now().getTime();
    const full = !state || now - state.fullAt >= PREDICTION_LIMITS.FULL_RELOAD_MS;
    const rows = (await trainingQuery().modify((q) => {
      if (!full && state?.newest) q.where('r.created_at', '>', state.newest);
    })) as TrainingRow[];
    const runs = full ? new Map<string, TrainingRun>() : state!.runs;
    for (const row of rows) runs.set(row.id, trainingRun(row));
    const newest = rows.reduce<Date | null>(
      (latest, row) => (!latest || row.created_at > latest ? row.created_at : latest),
      state?.newest ?? null,
    );
    const model = full || rows.length > 0 || !state ? await fitPredictionModelAsync([...runs.values()]) : state.model;
    await score(rows, model);
    state = {
      model,
      runs,
      newest,
      // Past the cap, the next refresh reads the newest runs again.
      fullAt: full && runs.size <= PREDICTION_LIMITS.MAX_TRAINING_RUNS ? now : (state?.fullAt ?? 0),
      refreshedAt: now,
    };
  }

  /** Refreshes now (at most one at a time); resolves when done. */
  function refresh(): Promise<void> {
    refreshing ??= refreshNow().finally(() => {
      refreshing = null;
    });
    return refreshing;
  }

  async function currentModel(): Promise<PredictionModel> {
    if (!state) await refresh();
    else if (clock.now().getTime() - state.refreshedAt >= PREDICTION_LIMITS.REFRESH_MS) void refresh().catch(() => undefined);
    return state!.model;
  }

  async function trackRecord(): Promise<TrackRecord> {
    const rows = await db('speed_test_prediction_scores')
      .orderBy('created_at', 'desc')
      .limit(PREDICTION_LIMITS.MAX_SCORES)
      .select('estimate', 'low', 'high', 'measured');
    return trackRecordOf(
      rows.map((row) => ({ estimate: Number(row.estimate), low: Number(row.low), high: Number(row.high), measured: Number(row.measured) })),
    );
  }

  return {
    refresh,
    trackRecord,

    /** The app's timer: once a model has been asked for, new runs are scored and learned from without waiting for the next question. */
    async refreshIfLoaded(): Promise<void> {
      if (state) await refresh();
    },

    /** The prediction for a setup; 422 naming the model, device or quantization it cannot place. */
    async predict(query: PredictionQuery): Promise<PredictionAnswer> {
      const picked = await models.pick(query.hfId);
      const row = picked ? await models.findByHfId(picked.hfId) : undefined;
      if (!row) throw new PredictionUnknown('model', messages.predictionUnknownModel(query.hfId));
      const placed = hardwareOfQuery(query);
      if (!placed) throw new PredictionUnknown('device', messages.predictionUnknownDevice(deviceText(query)));
      const contextDepth = query.contextDepth ?? 0;
      const concurrency = query.concurrency ?? 1;
      const model = await currentModel();
      const answer = predict(
        model,
        {
          hardware: placed.hardware,
          engineName: query.engineName ?? null,
          quantization: query.quantization,
          model: {
            key: (row.base_hf_id ?? row.hf_id).toLowerCase(),
            paramsB: row.params,
            activeParamsB: row.active_params,
            isMoE: row.is_moe,
            nativeBitsPerWeight: row.native_bits_per_weight ?? null,
          },
        },
        { contextDepth, concurrency, memory: placed.memory },
      );
      if (isUnknown(answer)) {
        const message =
          answer.unknown === 'device'
            ? messages.predictionUnknownDevice(deviceText(query))
            : answer.unknown === 'quantization'
              ? messages.predictionUnknownQuantization(query.quantization)
              : messages.predictionUnknownModelSize(row.hf_id, answer.reason);
        throw new PredictionUnknown(answer.unknown, message);
      }
      const { features } = answer;
      await db('speed_test_predictions')
        .insert({
          setup_key: features.weightsKey,
          asked_on: clock.now().toISOString().slice(0, 10),
          model_id: row.id,
          quantization: query.quantization,
          device: features.device,
          cards: features.cards,
          engine: features.engine,
          context_depth: contextDepth,
          estimate: answer.tokSOut.estimate,
          low: answer.tokSOut.low,
          high: answer.tokSOut.high,
          created_at: clock.now(),
        })
        .onConflict(['setup_key', 'asked_on'])
        .ignore();
      return {
        prediction: {
          kind: 'prediction',
          tokSOut: answer.tokSOut,
          ...(answer.tokSPrefill ? { tokSPrefill: answer.tokSPrefill } : {}),
          ...(answer.ttftMs ? { ttftMs: answer.ttftMs } : {}),
          fits: answer.fits,
          memoryNeededGb: answer.memoryNeededGb,
          memoryAvailableGb: answer.memory,
        },
        setup: {
          model: { hfId: row.hf_id, displayName: row.display_name, paramsB: features.totalB, activeParamsB: features.activeB },
          quantization: query.quantization,
          bitsPerWeight: features.bits,
          device: { name: features.deviceName, slug: features.device, hwClass: features.hwClass, cards: features.cards },
          memoryBandwidthGBs: features.bandwidthGBs,
          decodeBoundTokS: Math.round(features.decodeBound * 10) / 10,
          engineName: query.engineName ?? null,
          contextDepth,
          concurrency,
        },
        basis: answer.basis,
        trackRecord: await trackRecord(),
      };
    },
  };
}

export type PredictionsService = ReturnType<typeof createPredictionsService>;
