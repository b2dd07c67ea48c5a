import { expect } from 'chai';
import { parseCommandSnippet } from '../../src/lib/command-snippet.ts';
import type { ParsedEngineFlags } from '../../src/lib/command-snippet.ts';

describe('parseCommandSnippet', () => {
  describe('maps every row of the spec flag table, in both --flag value and --flag=value forms', () => {
    const valueRows: { spellings: string[]; value: string; engine: string; expected: ParsedEngineFlags }[] = [
      { spellings: ['-ngl', '--n-gpu-layers'], value: '99', engine: 'llama.cpp', expected: { gpuLayers: 99 } },
      { spellings: ['-tp', '--tensor-parallel-size'], value: '2', engine: 'vllm', expected: { tensorParallel: 2 } },
      { spellings: ['--pipeline-parallel-size'], value: '4', engine: 'vllm', expected: { pipelineParallel: 4 } },
      { spellings: ['--gpu-memory-utilization'], value: '0.92', engine: 'vllm', expected: { gpuMemUtil: 0.92 } },
      { spellings: ['--quantization'], value: 'fp8', engine: 'sglang', expected: { sglangQuant: 'fp8' } },
      { spellings: ['--kv-cache-dtype'], value: 'fp8', engine: 'vllm', expected: { kvCacheDtype: 'fp8' } },
      { spellings: ['--max-running-requests', '--max-num-seqs'], value: '64', engine: 'vllm', expected: { maxRunningSeqs: 64 } },
      { spellings: ['--parallel', '-np'], value: '4', engine: 'llama.cpp', expected: { numParallel: 4 } },
      { spellings: ['--concurrency'], value: '8', engine: 'vllm', expected: { concurrency: 8 } },
      {
        spellings: ['--speculative-model', '--draft-model'], value: 'org/draft-1b', engine: 'vllm',
        expected: { specDraftModel: 'org/draft-1b', specDecoding: true },
      },
      { spellings: ['--num-speculative-tokens'], value: '5', engine: 'vllm', expected: { specNumTokens: 5, specDecoding: true } },
      { spellings: ['--speculative-draft-tensor-parallel-size'], value: '1', engine: 'vllm', expected: { specDraftTp: 1, specDecoding: true } },
      { spellings: ['--rope-scaling'], value: 'yarn', engine: 'llama.cpp', expected: { ropeScaling: 'yarn' } },
      { spellings: ['--rope-scale'], value: '4', engine: 'llama.cpp', expected: { ropeScale: 4 } },
      { spellings: ['--yarn-ext-factor'], value: '-1.5', engine: 'llama.cpp', expected: { yarnExtFactor: -1.5 } },
      { spellings: ['--cpu-offload-gb'], value: '12.5', engine: 'vllm', expected: { cpuOffloadGb: 12.5 } },
      { spellings: ['--split-mode'], value: 'row', engine: 'llama.cpp', expected: { splitMode: 'row' } },
      { spellings: ['--temp', '--temperature'], value: '0.7', engine: 'llama.cpp', expected: { temperature: 0.7 } },
      { spellings: ['--top-p'], value: '0.95', engine: 'llama.cpp', expected: { topP: 0.95 } },
      { spellings: ['--top-k'], value: '40', engine: 'llama.cpp', expected: { topK: 40 } },
      { spellings: ['--min-p'], value: '0.05', engine: 'llama.cpp', expected: { minP: 0.05 } },
      { spellings: ['--repeat-penalty'], value: '1.1', engine: 'llama.cpp', expected: { repeatPenalty: 1.1 } },
      { spellings: ['--mirostat'], value: '2', engine: 'llama.cpp', expected: { mirostat: 2 } },
      { spellings: ['--scheduler-delay-factor'], value: '0.5', engine: 'vllm', expected: { schedulerDelayFactor: 0.5 } },
      {
        spellings: ['--mtp-num-draft-tokens'], value: '2', engine: 'vllm',
        expected: { mtpEnabled: true, mtpDraftLayers: 2 },
      },
    ];
    for (const { spellings, value, engine, expected } of valueRows) {
      for (const flag of spellings) {
        for (const [form, command] of [['space', `serve model ${flag} ${value}`], ['=', `serve model ${flag}=${value}`]]) {
          it(`${flag} (${form} form, ${engine}) sets ${Object.keys(expected).join(', ')}`, () => {
            expect(parseCommandSnippet(command, engine)).to.deep.equal({ flags: expected, recognised: [flag], unrecognised: [] });
          });
        }
      }
    }

    const switchRows: { spellings: string[]; expected: ParsedEngineFlags }[] = [
      { spellings: ['--enable-prefix-caching', '--pc'], expected: { prefixCaching: true } },
      { spellings: ['-fa', '--flash-attn'], expected: { flashAttn: true } },
      { spellings: ['--enable-chunked-prefill'], expected: { chunkedPrefill: true } },
    ];
    for (const { spellings, expected } of switchRows) {
      for (const flag of spellings) {
        it(`${flag} alone sets ${JSON.stringify(expected)}`, () => {
          expect(parseCommandSnippet(`serve model ${flag} --host 0.0.0.0`, 'vllm')).to.deep.equal({
            flags: expected, recognised: [flag], unrecognised: ['--host'],
          });
        });
      }
    }
  });

  describe('well-known flags beyond the spec', () => {
    const cases: [string, string, ParsedEngineFlags][] = [
      ['-sm layer', 'llama.cpp', { splitMode: 'layer' }],
      ['-ctk q8_0', 'llama.cpp', { kvCacheDtype: 'q8_0' }],
      ['--cache-type-k=q4_0', 'llama.cpp', { kvCacheDtype: 'q4_0' }],
      ['-pp 2', 'vllm', { pipelineParallel: 2 }],
      ['--tp-size 4', 'sglang', { tensorParallel: 4 }],
      ['--tp 2', 'sglang', { tensorParallel: 2 }],
      ['--mem-fraction-static 0.85', 'sglang', { gpuMemUtil: 0.85 }],
      ['--chunked-prefill-size 8192', 'sglang', { prefillChunkSize: 8192 }],
      ['--attention-backend triton', 'sglang', { attentionBackend: 'triton' }],
      ['--no-enable-prefix-caching', 'vllm', { prefixCaching: false }],
      ['--disable-radix-cache', 'sglang', { prefixCaching: false }],
      ['--no-enable-chunked-prefill', 'vllm', { chunkedPrefill: false }],
      ['-cb', 'llama.cpp', { contBatching: true }],
      ['--cont-batching', 'llama.cpp', { contBatching: true }],
      ['-nocb', 'llama.cpp', { contBatching: false }],
      ['--no-cont-batching', 'llama.cpp', { contBatching: false }],
      ['--draft-max 16', 'llama.cpp', { specNumTokens: 16, specDecoding: true }],
      ['--draft 8', 'llama.cpp', { specNumTokens: 8, specDecoding: true }],
      ['-md draft.gguf', 'llama.cpp', { specDraftModel: 'draft.gguf', specDecoding: true }],
      ['--model-draft draft.gguf', 'llama.cpp', { specDraftModel: 'draft.gguf', specDecoding: true }],
      ['--draft-model-path org/d', 'sglang', { specDraftModel: 'org/d', specDecoding: true }],
      ['--speculative-draft-model-path org/d', 'sglang', { specDraftModel: 'org/d', specDecoding: true }],
      ['--speculative-num-draft-tokens 4', 'sglang', { specNumTokens: 4, specDecoding: true }],
      ['--speculative-algorithm EAGLE', 'sglang', { specMethod: 'EAGLE', specDecoding: true }],
    ];
    for (const [args, engine, expected] of cases) {
      it(`${engine}: "${args}" sets ${JSON.stringify(expected)}`, () => {
        expect(parseCommandSnippet(`server ${args}`, engine).flags).to.deep.equal(expected);
      });
    }
  });

  describe('tokenising', () => {
    it('removes single and double quotes and honours backslash escapes inside double quotes and outside quotes', () => {
      const result = parseCommandSnippet(
        `./llama-server -m 'my model.gguf' --split-mode "r\\"ow" --rope-scaling ya\\ rn --kv-cache-dtype 'q8_0'`,
        'llama.cpp',
      );
      expect(result.flags).to.deep.equal({ splitMode: 'r"ow', ropeScaling: 'ya rn', kvCacheDtype: 'q8_0' });
      expect(result.unrecognised).to.deep.equal(['-m']);
    });

    it('joins a realistic multi-line vllm command with backslash-newline continuations', () => {
      const command = [
        'vllm serve meta-llama/Llama-3.1-70B-Instruct \\',
        '  --tensor-parallel-size 4 \\',
        '  --gpu-memory-utilization=0.9 \\',
        '  --max-model-len 32768 \\',
        '  --enable-prefix-caching \\',
        '  --kv-cache-dtype fp8 \\',
        '  --max-num-seqs 128',
      ].join('\n');
      expect(parseCommandSnippet(command, 'vllm')).to.deep.equal({
        flags: { tensorParallel: 4, gpuMemUtil: 0.9, prefixCaching: true, kvCacheDtype: 'fp8', maxRunningSeqs: 128 },
        recognised: ['--tensor-parallel-size', '--gpu-memory-utilization', '--enable-prefix-caching', '--kv-cache-dtype', '--max-num-seqs'],
        unrecognised: ['--max-model-len'],
      });
    });

    it('joins a realistic multi-line llama.cpp command with CRLF continuations', () => {
      const command = [
        './llama-server -m models/qwen2.5-32b-q4_k_m.gguf \\',
        '  -ngl 99 -c 16384 \\',
        '  -fa on \\',
        '  -ctk q8_0 -ctv q8_0 \\',
        '  -np 4 --host 0.0.0.0 --port 8080',
      ].join('\r\n');
      expect(parseCommandSnippet(command, 'llama.cpp')).to.deep.equal({
        flags: { gpuLayers: 99, flashAttn: true, kvCacheDtype: 'q8_0', numParallel: 4 },
        recognised: ['-ngl', '-fa', '-ctk', '-np'],
        unrecognised: ['-m', '-c', '-ctv', '--host', '--port'],
      });
    });

    it('skips VAR=value environment prefixes and never treats them as flags', () => {
      const result = parseCommandSnippet('CUDA_VISIBLE_DEVICES=0,1 VLLM_USE_V1=1 vllm serve org/m -tp 2', 'vllm');
      expect(result).to.deep.equal({ flags: { tensorParallel: 2 }, recognised: ['-tp'], unrecognised: [] });
    });

    it('finds flags after python -m and docker run prefixes', () => {
      const sglang = parseCommandSnippet('python -m sglang.launch_server --model-path org/m --tp-size 2 --quantization fp8', 'sglang');
      expect(sglang.flags).to.deep.equal({ tensorParallel: 2, sglangQuant: 'fp8' });
      const docker = parseCommandSnippet(
        'docker run --gpus all -p 8000:8000 -e HF_TOKEN=x vllm/vllm-openai:latest --model org/m --gpu-memory-utilization 0.8',
        'vllm',
      );
      expect(docker.flags).to.deep.equal({ gpuMemUtil: 0.8 });
      expect(docker.unrecognised).to.deep.equal(['--gpus', '-p', '-e', '--model']);
    });

    it('treats an unterminated quote as running to the end of the input', () => {
      expect(parseCommandSnippet(`vllm serve m --kv-cache-dtype 'fp8 -tp 2`, 'vllm').flags).to.deep.equal({ kvCacheDtype: 'fp8 -tp 2' });
      expect(parseCommandSnippet('vllm serve m --kv-cache-dtype "fp8 -tp 2', 'vllm').flags).to.deep.equal({ kvCacheDtype: 'fp8 -tp 2' });
    });

    it('returns empty results for empty or whitespace-only input', () => {
      const empty = { flags: {}, recognised: [], unrecognised: [] };
      expect(parseCommandSnippet('', 'vllm')).to.deep.equal(empty);
      expect(parseCommandSnippet('  \n\t \\\n', 'vllm')).to.deep.equal(empty);
    });

    it('ignores shell comments', () => {
      expect(parseCommandSnippet('./llama-server -ngl 99 # -fa on', 'llama.cpp').flags).to.deep.equal({ gpuLayers: 99 });
    });
  });

  describe('boolean flags', () => {
    const cases: [string, ParsedEngineFlags, string[]][] = [
      ['-fa', { flashAttn: true }, []],
      ['-fa on', { flashAttn: true }, []],
      ['-fa off', { flashAttn: false }, []],
      ['-fa OFF', { flashAttn: false }, []],
      ['--flash-attn on', { flashAttn: true }, []],
      ['--flash-attn=false', { flashAttn: false }, []],
      ['--flash-attn=true', { flashAttn: true }, []],
      ['--flash-attn=0', { flashAttn: false }, []],
      ['--flash-attn=1', { flashAttn: true }, []],
      ['--flash-attn=yes', { flashAttn: true }, []],
      ['--flash-attn=no', { flashAttn: false }, []],
      ['-fa -ngl 99', { flashAttn: true, gpuLayers: 99 }, []],
      ['-fa model.gguf', { flashAttn: true }, []],
      ['--flash-attn=maybe', {}, ['--flash-attn']],
    ];
    for (const [args, expected, unrecognised] of cases) {
      it(`"${args}" gives ${JSON.stringify(expected)}`, () => {
        const result = parseCommandSnippet(`./llama-server ${args}`, 'llama.cpp');
        expect(result.flags).to.deep.equal(expected);
        expect(result.unrecognised).to.deep.equal(unrecognised);
      });
    }

    it('treats auto as recognised but leaves the field unknown, also over an earlier value', () => {
      expect(parseCommandSnippet('./llama-server -fa auto', 'llama.cpp')).to.deep.equal({ flags: {}, recognised: ['-fa'], unrecognised: [] });
      expect(parseCommandSnippet('./llama-server -fa on --flash-attn=AUTO', 'llama.cpp').flags).to.deep.equal({});
    });

    it('does not consume a following positional that is not a boolean word', () => {
      const result = parseCommandSnippet('vllm serve --enable-prefix-caching org/model -tp 2', 'vllm');
      expect(result.flags).to.deep.equal({ prefixCaching: true, tensorParallel: 2 });
    });
  });

  describe('--speculative-config', () => {
    const json = '{"method":"eagle","model":"org/draft","num_speculative_tokens":3,"draft_tensor_parallel_size":1}';
    const expected = { specMethod: 'eagle', specModel: 'org/draft', specNumTokens: 3, specDraftTp: 1, specDecoding: true };

    it('reads method, model, num_speculative_tokens and draft_tensor_parallel_size from quoted JSON', () => {
      expect(parseCommandSnippet(`vllm serve m --speculative-config '${json}'`, 'vllm')).to.deep.equal({
        flags: expected, recognised: ['--speculative-config'], unrecognised: [],
      });
    });

    it('accepts the = form and the underscore spelling', () => {
      expect(parseCommandSnippet(`vllm serve m --speculative-config='${json}'`, 'vllm').flags).to.deep.equal(expected);
      expect(parseCommandSnippet(`vllm serve m --speculative_config '${json}'`, 'vllm').flags).to.deep.equal(expected);
    });

    it('accepts JSON with escaped quotes inside a double-quoted argument', () => {
      const result = parseCommandSnippet('vllm serve m --speculative-config "{\\"method\\": \\"ngram\\", \\"num_speculative_tokens\\": 4}"', 'vllm');
      expect(result.flags).to.deep.equal({ specMethod: 'ngram', specNumTokens: 4, specDecoding: true });
    });

    it('ignores malformed JSON, reports the flag as unrecognised and does not throw', () => {
      expect(parseCommandSnippet(`vllm serve m --speculative-config '{"method":' -tp 2`, 'vllm')).to.deep.equal({
        flags: { tensorParallel: 2 }, recognised: ['-tp'], unrecognised: ['--speculative-config'],
      });
      expect(parseCommandSnippet('vllm serve m --speculative-config [1,2]', 'vllm').unrecognised).to.deep.equal(['--speculative-config']);
    });
  });

  describe('engine-specific flags', () => {
    it('maps --quantization to sglangQuant for sglang and to engineQuant for other engines', () => {
      expect(parseCommandSnippet('python -m sglang.launch_server --quantization awq', 'sglang').flags).to.deep.equal({ sglangQuant: 'awq' });
      expect(parseCommandSnippet('vllm serve m --quantization awq', 'vllm').flags).to.deep.equal({ engineQuant: 'awq' });
    });

    it('maps --mtp-num-draft-tokens only for vllm', () => {
      expect(parseCommandSnippet('vllm serve m --mtp-num-draft-tokens 1', 'vllm').flags).to.deep.equal({ mtpEnabled: true, mtpDraftLayers: 1 });
      expect(parseCommandSnippet('./llama-server --mtp-num-draft-tokens 1', 'llama.cpp')).to.deep.equal({
        flags: {}, recognised: [], unrecognised: ['--mtp-num-draft-tokens'],
      });
    });
  });

  describe('speculative decoding', () => {
    for (const [args, engine, expected] of [
      ['--speculative-model org/d', 'vllm', { specDraftModel: 'org/d', specDecoding: true }],
      ['--num-speculative-tokens 5', 'vllm', { specNumTokens: 5, specDecoding: true }],
      ['--speculative-algorithm NGRAM', 'sglang', { specMethod: 'NGRAM', specDecoding: true }],
      [`--speculative-config '{"method":"ngram","prompt_lookup_max":4}'`, 'vllm', { specMethod: 'ngram', specNgramSize: 4, specDecoding: true }],
    ] as [string, string, ParsedEngineFlags][]) {
      it(`sets specDecoding=true for "${args}"`, () => {
        expect(parseCommandSnippet(`serve ${args}`, engine).flags).to.deep.equal(expected);
      });
    }

    it('leaves specDecoding unset when no speculative field is set', () => {
      expect(parseCommandSnippet('vllm serve m -tp 2 --mtp-num-draft-tokens 1', 'vllm').flags).to.not.have.property('specDecoding');
    });
  });

  describe('unrecognised and invalid input', () => {
    it('lists unknown flags without their values and does not fail', () => {
      expect(parseCommandSnippet('vllm serve m --max-model-len=8192 --trust-remote-code --served-model-name x -tp 2', 'vllm')).to.deep.equal({
        flags: { tensorParallel: 2 },
        recognised: ['-tp'],
        unrecognised: ['--max-model-len', '--trust-remote-code', '--served-model-name'],
      });
    });

    it('does not set a numeric field from a non-numeric value and lists the flag as unrecognised', () => {
      expect(parseCommandSnippet('./llama-server -ngl all -fa', 'llama.cpp')).to.deep.equal({
        flags: { flashAttn: true }, recognised: ['-fa'], unrecognised: ['-ngl'],
      });
    });

    it('rejects non-integer values for integer fields but accepts them for float fields', () => {
      expect(parseCommandSnippet('vllm serve m -tp 2.5 --gpu-memory-utilization .9', 'vllm')).to.deep.equal({
        flags: { gpuMemUtil: 0.9 }, recognised: ['--gpu-memory-utilization'], unrecognised: ['-tp'],
      });
    });

    it('does not range-check values', () => {
      expect(parseCommandSnippet('vllm serve m --gpu-memory-utilization 7 -tp 0', 'vllm').flags).to.deep.equal({ gpuMemUtil: 7, tensorParallel: 0 });
    });

    it('lists a value flag with a missing value (end of input or followed by a flag) as unrecognised', () => {
      expect(parseCommandSnippet('./llama-server -ngl', 'llama.cpp')).to.deep.equal({ flags: {}, recognised: [], unrecognised: ['-ngl'] });
      expect(parseCommandSnippet('./llama-server -ngl -fa', 'llama.cpp')).to.deep.equal({
        flags: { flashAttn: true }, recognised: ['-fa'], unrecognised: ['-ngl'],
      });
    });

    it('never throws for odd input', () => {
      for (const input of ['"', "'", '\\', '--', '-', '--=', '-ngl=', '"\\', '#', '--speculative-config', '=\\\r\n']) {
        expect(() => parseCommandSnippet(input, 'vllm'), input).to.not.throw();
      }
    });
  });

  describe('spelling and ordering', () => {
    it('accepts underscore spellings as the hyphen form and reports them as written', () => {
      expect(parseCommandSnippet('vllm serve m --tensor_parallel_size 2 --gpu_memory_utilization=0.9', 'vllm')).to.deep.equal({
        flags: { tensorParallel: 2, gpuMemUtil: 0.9 },
        recognised: ['--tensor_parallel_size', '--gpu_memory_utilization'],
        unrecognised: [],
      });
    });

    it('matches flags case-sensitively', () => {
      expect(parseCommandSnippet('./llama-server -NP 4 -Ngl 9', 'llama.cpp')).to.deep.equal({
        flags: {}, recognised: [], unrecognised: ['-NP', '-Ngl'],
      });
    });

    it('lets a later occurrence of a flag (or an alias) win', () => {
      expect(parseCommandSnippet('./llama-server -ngl 10 --n-gpu-layers 20 -ngl 30 -fa on -fa off', 'llama.cpp')).to.deep.equal({
        flags: { gpuLayers: 30, flashAttn: false }, recognised: ['-ngl', '--n-gpu-layers', '-fa'], unrecognised: [],
      });
    });

    it('reports numParallel and concurrency, and specDraftModel and specModel, as written without aliasing', () => {
      const result = parseCommandSnippet(
        `vllm serve m --parallel 2 --concurrency 8 --speculative-model org/a --speculative-config '{"model":"org/b"}'`,
        'vllm',
      );
      expect(result.flags).to.deep.equal({ numParallel: 2, concurrency: 8, specDraftModel: 'org/a', specModel: 'org/b', specDecoding: true });
    });
  });
});
