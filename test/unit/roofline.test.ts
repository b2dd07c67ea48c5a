import { expect } from 'chai';
import {
  MIN_CACHE_SAFE_WEIGHT_GB,
  DEFAULT_SUSPECT_FACTOR,
  SUSPECT_FACTORS,
  assessPlausibility,
  bitsPerWeight,
  decodeBoundTokS,
  methodology,
  type RooflineInput,
} from '../../src/lib/roofline.ts';

/** RTX 4090 (1,008 GB/s), Llama-3.1-8B (8.03B) at Q4_K_M, batch 1, one request. */
function rtx4090Llama8B(fields: Partial<RooflineInput> = {}): RooflineInput {
  return {
    tokSOut: 150,
    batchSize: 1,
    concurrency: 1,
    specDecoding: false,
    mtpEnabled: false,
    quantization: 'Q4_K_M',
    paramsB: 8.03,
    activeParamsB: null,
    isMoE: false,
    memoryBandwidthGBs: 1008,
    hwClass: 'DISCRETE_GPU',
    ...fields,
  };
}

/** M4 Max (546 GB/s), Qwen3-30B-A3B (30.5B total, 3.3B active) at Q4_K_M. */
function m4MaxQwen3Moe(fields: Partial<RooflineInput> = {}): RooflineInput {
  return {
    tokSOut: 80,
    batchSize: 1,
    quantization: 'Q4_K_M',
    paramsB: 30.5,
    activeParamsB: 3.3,
    isMoE: true,
    memoryBandwidthGBs: 546,
    hwClass: 'UNIFIED',
    ...fields,
  };
}

describe('decode-speed roofline', () => {
  describe('decodeBoundTokS', () => {
    it('divides bandwidth by the bytes read per token', () => {
      // 10B params at 8 bits = 10 GB per token; 1000 GB/s / 10 GB = 100 tok/s.
      expect(decodeBoundTokS(1000, 10, 8)).to.equal(100);
      // 7B at fp16 = 14 GB; 400 GB/s -> 28.57 tok/s.
      expect(decodeBoundTokS(400, 7, 16)).to.be.closeTo(28.571, 0.001);
      // Halving the bits doubles the bound.
      expect(decodeBoundTokS(400, 7, 8)).to.be.closeTo(2 * decodeBoundTokS(400, 7, 16), 1e-9);
    });

    it('reproduces the 4090 / 8B / Q4_K_M figure of about 200 tok/s', () => {
      const bound = decodeBoundTokS(1008, 8.03, bitsPerWeight('Q4_K_M')!);
      expect(bound).to.be.within(195, 215);
    });

    it('rejects non-positive or non-finite arguments', () => {
      expect(() => decodeBoundTokS(0, 8, 4.8)).to.throw(RangeError);
      expect(() => decodeBoundTokS(1008, -1, 4.8)).to.throw(RangeError);
      expect(() => decodeBoundTokS(1008, 8, Number.NaN)).to.throw(RangeError);
      expect(() => decodeBoundTokS(Number.POSITIVE_INFINITY, 8, 4.8)).to.throw(RangeError);
    });
  });

  describe('assessPlausibility on an RTX 4090 with an 8B model at Q4_K_M', () => {
    const exactBound = decodeBoundTokS(1008, 8.03, bitsPerWeight('Q4_K_M')!);

    it('has a bound near 200 tok/s, rounded to one decimal', () => {
      const verdict = assessPlausibility(rtx4090Llama8B());
      expect(verdict.boundTokS).to.be.within(195, 215);
      expect(verdict.boundTokS).to.equal(Math.round(exactBound * 10) / 10);
    });

    it('calls 150 tok/s plausible, naming the discrete-GPU factor', () => {
      const verdict = assessPlausibility(rtx4090Llama8B({ tokSOut: 150 }));
      expect(verdict.plausibility).to.equal('plausible');
      expect(verdict.reason).to.equal(
        `within 1.1 × the ${verdict.boundTokS!.toFixed(1)} tok/s memory-bandwidth bound (discrete GPU factor)`,
      );
    });

    it('calls 400 tok/s suspect', () => {
      const verdict = assessPlausibility(rtx4090Llama8B({ tokSOut: 400 }));
      expect(verdict.plausibility).to.equal('suspect');
      expect(verdict.reason).to.equal(
        `above 1.1 × the ${verdict.boundTokS!.toFixed(1)} tok/s memory-bandwidth bound (discrete GPU factor)`,
      );
    });

    it("is plausible at exactly its class's factor × the bound and suspect just above, for every class", () => {
      expect(SUSPECT_FACTORS).to.deep.equal({ DISCRETE_GPU: 1.1, UNIFIED: 1.1, CPU_ONLY: 1.5 });
      for (const [hwClass, factor] of Object.entries(SUSPECT_FACTORS)) {
        const limit = factor * exactBound;
        expect(assessPlausibility(rtx4090Llama8B({ hwClass, tokSOut: limit })).plausibility, hwClass).to.equal('plausible');
        expect(assessPlausibility(rtx4090Llama8B({ hwClass, tokSOut: limit + 0.01 })).plausibility, hwClass).to.equal('suspect');
      }
      // Above the bound itself but within the factor is still plausible.
      expect(assessPlausibility(rtx4090Llama8B({ tokSOut: exactBound * 1.05 })).plausibility).to.equal('plausible');
    });

    it('holds a run of an unknown hardware class to the loosest factor', () => {
      expect(DEFAULT_SUSPECT_FACTOR).to.equal(1.5);
      for (const hwClass of [null, undefined, 'QUANTUM']) {
        const verdict = assessPlausibility(rtx4090Llama8B({ hwClass, tokSOut: exactBound * 1.4 }));
        expect(verdict.plausibility, String(hwClass)).to.equal('plausible');
        expect(verdict.reason).to.equal(`within 1.5 × the ${verdict.boundTokS!.toFixed(1)} tok/s memory-bandwidth bound`);
        expect(assessPlausibility(rtx4090Llama8B({ hwClass, tokSOut: exactBound * 1.51 })).plausibility).to.equal('suspect');
      }
    });

    it('treats missing concurrency / spec / MTP flags as a plain single-stream run', () => {
      const verdict = assessPlausibility(
        rtx4090Llama8B({ tokSOut: 400, concurrency: undefined, specDecoding: null, mtpEnabled: undefined }),
      );
      expect(verdict.plausibility).to.equal('suspect');
    });

    it('uses an explicit active count for a dense model when one is given', () => {
      const verdict = assessPlausibility(rtx4090Llama8B({ activeParamsB: 8.03, paramsB: null }));
      expect(verdict.boundTokS).to.equal(Math.round(exactBound * 10) / 10);
      expect(verdict.plausibility).to.equal('plausible');
    });
  });

  describe('throughput runs: N sequences share each pass over the weights', () => {
    const exactBound = decodeBoundTokS(1008, 8.03, bitsPerWeight('Q4_K_M')!);

    it('holds batch × concurrency streams to that many times the bound, naming the streams', () => {
      const verdict = assessPlausibility(rtx4090Llama8B({ tokSOut: 900, batchSize: 8 }));
      expect(verdict.plausibility).to.equal('plausible');
      expect(verdict.boundTokS).to.equal(Math.round(exactBound * 10) / 10);
      expect(verdict.reason).to.equal(
        `within 1.1 × 8 streams × the ${verdict.boundTokS!.toFixed(1)} tok/s memory-bandwidth bound (discrete GPU factor)`,
      );
      // 2 in a batch × 4 requests in flight = 8 streams.
      const limit = 1.1 * 8 * exactBound;
      expect(assessPlausibility(rtx4090Llama8B({ tokSOut: limit, batchSize: 2, concurrency: 4 })).plausibility).to.equal('plausible');
      const over = assessPlausibility(rtx4090Llama8B({ tokSOut: limit + 0.01, batchSize: 2, concurrency: 4 }));
      expect(over.plausibility).to.equal('suspect');
      expect(over.reason).to.match(/^above 1\.1 × 8 streams × the /);
    });

    it('does not judge a batch or concurrency that is not a positive whole number', () => {
      for (const shape of [{ batchSize: 1.5 }, { batchSize: Number.NaN }, { concurrency: 0 }, { concurrency: 2.5 }]) {
        const verdict = assessPlausibility(rtx4090Llama8B({ tokSOut: 900, ...shape }));
        expect(verdict.plausibility, JSON.stringify(shape)).to.equal('unknown');
        expect(verdict.reason).to.equal('not judged: batch size or concurrency is not a positive whole number');
      }
    });
  });

  describe('MoE models', () => {
    it('bounds an MoE by its active parameters (Qwen3-30B-A3B on an M4 Max: about 273 tok/s)', () => {
      const verdict = assessPlausibility(m4MaxQwen3Moe());
      expect(verdict.boundTokS).to.be.within(260, 290);
      expect(verdict.boundTokS).to.equal(Math.round(decodeBoundTokS(546, 3.3, bitsPerWeight('Q4_K_M')!) * 10) / 10);
      expect(verdict.plausibility).to.equal('plausible');
      // Total params would give ~29 tok/s and falsely flag this run; active params do not.
      expect(decodeBoundTokS(546, 30.5, bitsPerWeight('Q4_K_M')!)).to.be.below(80);
    });

    it('flags an MoE run far above its active-parameter bound', () => {
      const verdict = assessPlausibility(m4MaxQwen3Moe({ tokSOut: 400 }));
      expect(verdict.plausibility).to.equal('suspect');
    });

    it("caps the label at the model's native bits: gpt-oss-20b in an F16-labelled GGUF is still MXFP4", () => {
      // RTX 4090, 3.61 B active: at 16 bits the bound would be 139.6 tok/s, at MXFP4's 4.25 it is 525.6.
      const gptOss = (fields: Partial<RooflineInput>) =>
        assessPlausibility(
          m4MaxQwen3Moe({ memoryBandwidthGBs: 1008, paramsB: 20.91, activeParamsB: 3.61, quantization: 'F16', tokSOut: 200, ...fields }),
        );
      const capped = gptOss({ nativeBitsPerWeight: 4.25 });
      expect(capped).to.include({ plausibility: 'plausible', boundTokS: 525.6 });
      expect(gptOss({ nativeBitsPerWeight: null })).to.include({ plausibility: 'suspect', boundTokS: 139.6 });
      // A label below the native bits is kept; an unknown label stays unknown.
      expect(gptOss({ nativeBitsPerWeight: 4.25, quantization: 'Q2_K' }).boundTokS).to.equal(
        Math.round(decodeBoundTokS(1008, 3.61, 3.15) * 10) / 10,
      );
      expect(gptOss({ nativeBitsPerWeight: 4.25, quantization: 'mystery' }).plausibility).to.equal('unknown');
      // FP8-native DeepSeek V3 labelled BF16 is read at 8 bits.
      const deepSeek = assessPlausibility(
        m4MaxQwen3Moe({ paramsB: 671, activeParamsB: 36.62, quantization: 'BF16', nativeBitsPerWeight: 8 }),
      );
      expect(deepSeek.boundTokS).to.equal(Math.round(decodeBoundTokS(546, 36.62, 8) * 10) / 10);
    });

    it('is unknown for an MoE without an active count, even when total params are known', () => {
      const verdict = assessPlausibility(m4MaxQwen3Moe({ activeParamsB: null, tokSOut: 1000 }));
      expect(verdict).to.deep.equal({
        plausibility: 'unknown',
        boundTokS: null,
        reason: 'MoE without an active-parameter count: total parameters would give a bound that is too low',
      });
    });
  });

  describe("every 'unknown' reason", () => {
    const cases: { name: string; input: RooflineInput; reason: string | RegExp; hasBound: boolean }[] = [
      {
        name: 'unknown quantization',
        input: rtx4090Llama8B({ tokSOut: 900, quantization: 'xyz' }),
        reason: 'unknown quantization "xyz"',
        hasBound: false,
      },
      {
        name: 'empty quantization',
        input: rtx4090Llama8B({ tokSOut: 900, quantization: '  ' }),
        reason: 'unknown quantization ""',
        hasBound: false,
      },
      {
        name: 'unknown params',
        input: rtx4090Llama8B({ tokSOut: 900, paramsB: null, activeParamsB: null }),
        reason: 'unknown parameter count',
        hasBound: false,
      },
      {
        name: 'unknown bandwidth',
        input: rtx4090Llama8B({ tokSOut: 900, memoryBandwidthGBs: null }),
        reason: 'unknown memory bandwidth',
        hasBound: false,
      },
      {
        name: 'zero bandwidth',
        input: rtx4090Llama8B({ tokSOut: 900, memoryBandwidthGBs: 0 }),
        reason: 'unknown memory bandwidth',
        hasBound: false,
      },
      {
        name: 'MoE without active params',
        input: m4MaxQwen3Moe({ tokSOut: 900, activeParamsB: null }),
        reason: 'MoE without an active-parameter count: total parameters would give a bound that is too low',
        hasBound: false,
      },
      {
        name: 'speculative decoding',
        input: rtx4090Llama8B({ tokSOut: 900, specDecoding: true }),
        reason: 'not judged: speculative decoding can accept several tokens per pass over the weights',
        hasBound: true,
      },
      {
        name: 'speculative decoding with several streams',
        input: rtx4090Llama8B({ tokSOut: 900, specDecoding: true, batchSize: 4 }),
        reason: 'not judged: speculative decoding can accept several tokens per pass over the weights',
        hasBound: true,
      },
      {
        name: 'MTP',
        input: rtx4090Llama8B({ tokSOut: 900, mtpEnabled: true }),
        reason: 'not judged: multi-token prediction (MTP) can emit several tokens per pass over the weights',
        hasBound: true,
      },
      {
        name: 'tokSOut null',
        input: rtx4090Llama8B({ tokSOut: null }),
        reason: 'no output tokens/s reported',
        hasBound: true,
      },
      {
        name: 'weights small enough for on-chip cache, cache not catalogued',
        input: rtx4090Llama8B({ tokSOut: 9000, paramsB: 0.5, quantization: 'Q4_K_M' }),
        reason: `weights under ${MIN_CACHE_SAFE_WEIGHT_GB} GB can be served from on-chip cache (the device's last-level cache is not catalogued)`,
        hasBound: true,
      },
      {
        name: "weights that fit the device's last-level cache",
        input: rtx4090Llama8B({ tokSOut: 9000, paramsB: 0.1, quantization: 'Q4_K_M', lastLevelCacheMb: 72 }),
        reason: "weights of 60 MB fit the device's 72 MB last-level cache",
        hasBound: true,
      },
    ];

    for (const { name, input, reason, hasBound } of cases) {
      it(`${name} -> unknown`, () => {
        const verdict = assessPlausibility(input);
        expect(verdict.plausibility).to.equal('unknown');
        expect(verdict.reason).to.equal(reason);
        if (hasBound) expect(verdict.boundTokS).to.be.a('number').and.to.be.above(0);
        else expect(verdict.boundTokS).to.equal(null);
      });
    }

    it("judges weights under 1 GB against memory bandwidth when they do not fit the device's last-level cache", () => {
      // Llama 3.2 1B Q4_K_M (about 0.75 GB) on an RTX 3090 (6 MB L2): memory bound, so judged.
      const onRtx3090 = (tokSOut: number) =>
        assessPlausibility({
          ...rtx4090Llama8B({ tokSOut, paramsB: 1.24, quantization: 'Q4_K_M' }),
          memoryBandwidthGBs: 936,
          lastLevelCacheMb: 6,
        });
      expect(onRtx3090(300).plausibility).to.equal('plausible');
      expect(onRtx3090(3000).plausibility).to.equal('suspect');
    });

    it('never flags when several inputs are unknown at once', () => {
      const verdict = assessPlausibility(
        rtx4090Llama8B({ tokSOut: 1e6, quantization: 'mystery', paramsB: null, memoryBandwidthGBs: null, batchSize: 4 }),
      );
      expect(verdict.plausibility).to.equal('unknown');
      expect(verdict.boundTokS).to.equal(null);
    });
  });

  describe('bitsPerWeight', () => {
    it("reads a bare width on the MLX engine as mlx-lm's default group of 64 (4bit: 4.5), elsewhere as group 128", () => {
      for (const engine of ['mlx', 'MLX', 'mlx-lm', 'mlx_lm']) {
        expect(bitsPerWeight('4bit', engine), engine).to.equal(4.5);
        expect(bitsPerWeight('4-bit', engine), engine).to.equal(4.5);
      }
      expect(bitsPerWeight('8bit', 'mlx')).to.equal(8.5);
      expect(bitsPerWeight('3bit', 'mlx')).to.equal(3.5);
      expect(bitsPerWeight('4bit', 'vllm')).to.equal(4.125);
      expect(bitsPerWeight('4bit')).to.equal(4.125);
      // Labels that say their format keep it on any engine.
      expect(bitsPerWeight('Q4_K_M', 'mlx')).to.equal(4.8);
      expect(bitsPerWeight('AWQ', 'mlx')).to.equal(4.125);
      // The verdict's bound follows: 8B at 4.5 bits on 1008 GB/s.
      const input = {
        tokSOut: 50,
        batchSize: 1,
        quantization: '4bit',
        paramsB: 8,
        activeParamsB: 8,
        isMoE: false,
        memoryBandwidthGBs: 1008,
      };
      expect(assessPlausibility({ ...input, engineName: 'mlx' }).boundTokS).to.equal(Math.round((1008 / ((8 * 4.5) / 8)) * 10) / 10);
      expect(assessPlausibility({ ...input, engineName: 'vllm' }).boundTokS).to.equal(Math.round((1008 / ((8 * 4.125) / 8)) * 10) / 10);
    });

    it('reads the llama.cpp figures, including scale overhead', () => {
      expect(bitsPerWeight('Q4_K_M')).to.equal(4.8);
      expect(bitsPerWeight('Q8_0')).to.equal(8.5);
      expect(bitsPerWeight('Q4_0')).to.equal(4.5);
      expect(bitsPerWeight('Q6_K')).to.equal(6.56);
      expect(bitsPerWeight('IQ4_XS')).to.equal(4.25);
      expect(bitsPerWeight('IQ2_XXS')).to.equal(2.06);
      expect(bitsPerWeight('Q2_K')).to.equal(3.15);
    });

    it('is case- and separator-tolerant', () => {
      for (const label of ['Q4_K_M', 'q4_k_m', 'Q4-K-M', 'q4 k m', ' Q4_K_M ', 'Q4.K.M', 'Q4_K_M-GGUF', 'gguf q4_k_m', 'UD-Q4_K_M']) {
        expect(bitsPerWeight(label), label).to.equal(4.8);
      }
      expect(bitsPerWeight('Q4_K')).to.equal(4.8); // llama-quantize alias of Q4_K_M
      expect(bitsPerWeight('  Q8_0 ')).to.equal(8.5);
      expect(bitsPerWeight('iq3-xxs')).to.equal(3.06);
    });

    it('knows float, 8-bit and 4-bit families', () => {
      for (const label of ['fp16', 'F16', 'bf16', 'BF16', 'float16']) expect(bitsPerWeight(label), label).to.equal(16);
      for (const label of ['fp32', 'F32']) expect(bitsPerWeight(label), label).to.equal(32);
      for (const label of ['fp8', 'FP8', 'fp8_e4m3', 'FP8-Dynamic', 'int8', 'INT8', 'w8a8', '8bit', '8-bit', 'q8', 'GPTQ-Int8']) {
        expect(bitsPerWeight(label), label).to.equal(8);
      }
      for (const label of ['AWQ', 'awq', 'GPTQ', 'GPTQ-Int4', 'int4', 'INT4', 'w4a16', 'W4A16', '4bit', '4-bit', 'Int4 (AWQ)']) {
        expect(bitsPerWeight(label), label).to.equal(4.125);
      }
      for (const label of ['nf4', 'bnb-nf4', 'bnb-4bit']) expect(bitsPerWeight(label), label).to.equal(4.127);
      expect(bitsPerWeight('NVFP4')).to.equal(4.5);
      expect(bitsPerWeight('mxfp4')).to.equal(4.25);
      expect(bitsPerWeight('MXFP4_MOE')).to.equal(4.25);
    });

    it('knows MLX group-64 quantization', () => {
      expect(bitsPerWeight('MLX 4bit')).to.equal(4.5);
      expect(bitsPerWeight('mlx-4bit')).to.equal(4.5);
      expect(bitsPerWeight('4bit-mlx')).to.equal(4.5);
      expect(bitsPerWeight('MLX 3bit')).to.equal(3.5);
      expect(bitsPerWeight('mlx 6-bit')).to.equal(6.5);
      expect(bitsPerWeight('MLX 8bit')).to.equal(8.5);
    });

    it('parses EXL2 / EXL3 "<n>bpw" labels', () => {
      expect(bitsPerWeight('4.0bpw')).to.equal(4);
      expect(bitsPerWeight('4.65bpw')).to.equal(4.65);
      expect(bitsPerWeight('5bpw')).to.equal(5);
      expect(bitsPerWeight('EXL2 4.65bpw')).to.equal(4.65);
      expect(bitsPerWeight('exl2-6.0bpw-h6')).to.equal(6);
      expect(bitsPerWeight('EXL3_3.5bpw')).to.equal(3.5);
      expect(bitsPerWeight('4.25BPW-exl3')).to.equal(4.25);
      expect(bitsPerWeight('4.0 bpw')).to.equal(4);
      expect(bitsPerWeight('0bpw')).to.equal(null);
      expect(bitsPerWeight('99bpw')).to.equal(null);
    });

    // Each label as people and tools write it, with the figure it reads as (always the lower one when unsure).
    const labels: [string, number][] = [
      // unsloth Dynamic and bartowski "_L"/"_XL" files.
      ['Q4_K_XL', 4.5],
      ['UD-Q4_K_XL', 4.5],
      ['UD-Q2_K_XL', 2.51],
      ['UD-Q3_K_XL', 3.5],
      ['Q3_K_XL', 3.5],
      ['UD-Q5_K_XL', 5.5],
      ['UD-Q6_K_XL', 6.56],
      ['UD-Q8_K_XL', 8.5],
      ['UD-IQ2_XXS', 2.06],
      ['UD-IQ1_S', 1.56],
      ['UD-TQ1_0', 1.69],
      ['Q4_K_L', 4.8],
      ['Q5_K_L', 5.65],
      ['Q6_K_L', 6.56],
      ['Q2_K_L', 3.15],
      // llama-bench's "model" / "type" column text.
      ['Q4_K - Medium', 4.8],
      ['Q4_K - Small', 4.53],
      ['Q5_K - Medium', 5.65],
      ['Q3_K - Large', 4.19],
      ['Q2_K - Medium', 3.15],
      ['Q6_K', 6.56],
      ['IQ4_XS - 4.25 bpw', 4.25],
      ['IQ2_XXS - 2.0625 bpw', 2.06],
      ['IQ3_S mix - 3.66 bpw', 3.66],
      ['TQ1_0 - 1.69 bpw ternary', 1.69],
      ['IQ2_KS - 2.1875 bpw', 2.1875],
      ['Q8_0', 8.5],
      ['F16', 16],
      ['BF16', 16],
      ['all F32', 32],
      ['MXFP4 MoE', 4.25],
      ['llama 8B Q4_K - Medium', 4.8],
      ['qwen3moe 30B.A3B Q4_K - Medium', 4.8],
      ['Q4_0_4_4', 4.5],
      // MLC LLM.
      ['q4f16_1', 4.5],
      ['q4f32_1', 5],
      ['q3f16_1', 3.4],
      ['q0f16', 16],
      ['q0f32', 32],
      ['q4f16_ft', 4],
      // FP4 families.
      ['MXFP4', 4.25],
      ['mxfp4', 4.25],
      ['fp4', 4.127],
      ['NVFP4', 4.5],
      // MLX: plain, DWQ and mixed recipes (lowest width).
      ['4bit', 4.125],
      ['mlx-4bit', 4.5],
      ['4bit-DWQ', 4.5],
      ['mlx-3bit-dwq', 3.5],
      ['DWQ', 3.5],
      ['mixed_3_6', 3.5],
      ['mixed-2-6', 2.5],
      ['3bit-mixed', 3.5],
      ['mlx mixed 4bit', 4.5],
      // EXL3 and GGUF suffixes.
      ['exl3 4.0bpw', 4],
      ['5bpw-exl3', 5],
      ['Q4_K_M-GGUF', 4.8],
      ['Q4_K_M.gguf', 4.8],
      ['GGUF Q6_K', 6.56],
    ];
    for (const [label, bits] of labels) {
      it(`reads ${JSON.stringify(label)} as ${bits} bits`, () => {
        expect(bitsPerWeight(label)).to.equal(bits);
      });
    }

    it('returns null for anything else', () => {
      for (const label of [
        '',
        '   ',
        'xyz',
        'Q4_K_M_something',
        'exl2',
        'gguf',
        'MLX',
        'Q9_K',
        'bpw',
        'K_M',
        'my-own-quant',
        'mixed',
        'q4f16_9',
      ]) {
        expect(bitsPerWeight(label), label).to.equal(null);
      }
    });

    it('never uses a figure above the measured llama.cpp whole-file bits (Llama 3.1 8B README table)', () => {
      const measured: Record<string, number> = {
        Q2_K_S: 2.9697,
        Q2_K: 3.1593,
        Q3_K_S: 3.6429,
        Q3_K_L: 4.2979,
        Q4_K_S: 4.6672,
        Q4_K_M: 4.8944,
        Q5_K_S: 5.5704,
        Q5_K_M: 5.7036,
        Q6_K: 6.5633,
        Q8_0: 8.5008,
        IQ1_S: 2.0042,
        IQ1_M: 2.146,
        IQ2_XXS: 2.3824,
        IQ2_XS: 2.5882,
        IQ2_S: 2.7403,
        IQ2_M: 2.9294,
        IQ3_XXS: 3.2548,
        IQ3_XS: 3.4977,
        IQ3_S: 3.6606,
        IQ3_M: 3.7628,
        IQ4_XS: 4.4597,
        IQ4_NL: 4.6818,
        F16: 16.0005,
      };
      for (const [label, bits] of Object.entries(measured)) {
        expect(bitsPerWeight(label), label).to.be.a('number').and.to.be.at.most(bits);
      }
    });
  });

  describe('methodology', () => {
    it('describes the formula, the assumptions and the bits table', () => {
      expect(methodology.formula).to.include('bandwidth').and.to.include('bits per weight');
      expect(methodology.assumptions).to.have.length.above(3);
      for (const assumption of methodology.assumptions) expect(assumption).to.be.a('string').and.not.equal('');
      expect(methodology.bitsPerWeightTable).to.have.length.above(20);
      for (const row of methodology.bitsPerWeightTable) {
        expect(row.quantization).to.be.a('string').and.not.equal('');
        expect(row.bits).to.be.a('number').and.to.be.above(0);
      }
      const q4km = methodology.bitsPerWeightTable.find((row) => row.quantization === 'Q4_K_M');
      expect(q4km?.bits).to.equal(bitsPerWeight('Q4_K_M'));
    });

    it('gives each hardware class its factor with the data it was chosen from', () => {
      expect(methodology.suspectFactors.map((row) => [row.hwClass, row.factor])).to.deep.equal(Object.entries(SUSPECT_FACTORS));
      for (const row of methodology.suspectFactors) {
        expect(row.hardware).to.be.a('string').and.not.equal('');
        expect(row.basis).to.match(/\d\.\d+ × the bound/);
        expect(methodology.formula).to.include(String(row.factor));
      }
      expect(methodology.factorSource).to.include('test/fixtures/real-runs');
    });

    it('has table rows that agree with bitsPerWeight for the GGUF names', () => {
      for (const row of methodology.bitsPerWeightTable) {
        if (/^I?Q\d|^TQ/.test(row.quantization)) expect(bitsPerWeight(row.quantization), row.quantization).to.equal(row.bits);
      }
    });
  });
});
