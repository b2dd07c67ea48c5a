import { expect } from 'chai';
import { parseCommandSnippet } from '../../src/lib/command-snippet.ts';
import type { ParsedEngineFlags } from '../../src/lib/command-snippet.ts';

/** The engine-flag side of a parse (the stated top-level fields are checked on their own below). */
function flagParse(snippet: string, engineName: string) {
  const { fields: _fields, ...rest } = parseCommandSnippet(snippet, engineName);
  return rest;
}

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
        spellings: ['--speculative-model', '--draft-model'],
        value: 'org/draft-1b',
        engine: 'vllm',
        expected: { specDraftModel: 'org/draft-1b', specDecoding: true },
      },
      { spellings: ['--num-speculative-tokens'], value: '5', engine: 'vllm', expected: { specNumTokens: 5, specDecoding: true } },
      {
        spellings: ['--speculative-draft-tensor-parallel-size'],
        value: '1',
        engine: 'vllm',
        expected: { specDraftTp: 1, specDecoding: true },
      },
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
        spellings: ['--mtp-num-draft-tokens'],
        value: '2',
        engine: 'vllm',
        expected: { mtpEnabled: true, mtpDraftLayers: 2 },
      },
    ];
    for (const { spellings, value, engine, expected } of valueRows) {
      for (const flag of spellings) {
        for (const [form, command] of [
          ['space', `serve model ${flag} ${value}`],
          ['=', `serve model ${flag}=${value}`],
        ]) {
          it(`${flag} (${form} form, ${engine}) sets ${Object.keys(expected).join(', ')}`, () => {
            expect(flagParse(command, engine)).to.deep.equal({ flags: expected, recognised: [flag], unrecognised: [] });
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
          expect(flagParse(`serve model ${flag} --host 0.0.0.0`, 'vllm')).to.deep.equal({
            flags: expected,
            recognised: [flag],
            unrecognised: ['--host'],
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
        expect(flagParse(`server ${args}`, engine).flags).to.deep.equal(expected);
      });
    }
  });

  describe('tokenising', () => {
    it('removes single and double quotes and honours backslash escapes inside double quotes and outside quotes', () => {
      const result = flagParse(
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
      expect(flagParse(command, 'vllm')).to.deep.equal({
        flags: { tensorParallel: 4, gpuMemUtil: 0.9, prefixCaching: true, kvCacheDtype: 'fp8', maxRunningSeqs: 128 },
        recognised: [
          '--tensor-parallel-size',
          '--gpu-memory-utilization',
          '--max-model-len',
          '--enable-prefix-caching',
          '--kv-cache-dtype',
          '--max-num-seqs',
        ],
        unrecognised: [],
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
      expect(flagParse(command, 'llama.cpp')).to.deep.equal({
        flags: { gpuLayers: 99, flashAttn: true, kvCacheDtype: 'q8_0', numParallel: 4 },
        recognised: ['-ngl', '-c', '-fa', '-ctk', '-np'],
        unrecognised: ['-m', '-ctv', '--host', '--port'],
      });
    });

    it('skips VAR=value environment prefixes and never treats them as flags', () => {
      const result = flagParse('CUDA_VISIBLE_DEVICES=0,1 VLLM_USE_V1=1 vllm serve org/m -tp 2', 'vllm');
      expect(result).to.deep.equal({ flags: { tensorParallel: 2 }, recognised: ['-tp'], unrecognised: [] });
    });

    it('finds flags after python -m and docker run prefixes', () => {
      const sglang = flagParse('python -m sglang.launch_server --model-path org/m --tp-size 2 --quantization fp8', 'sglang');
      expect(sglang.flags).to.deep.equal({ tensorParallel: 2, sglangQuant: 'fp8' });
      const docker = flagParse(
        'docker run --gpus all -p 8000:8000 -e HF_TOKEN=x vllm/vllm-openai:latest --model org/m --gpu-memory-utilization 0.8',
        'vllm',
      );
      expect(docker.flags).to.deep.equal({ gpuMemUtil: 0.8 });
      expect(docker.unrecognised).to.deep.equal(['--gpus', '-p', '-e']);
    });

    it('treats an unterminated quote as running to the end of the input', () => {
      expect(flagParse(`vllm serve m --kv-cache-dtype 'fp8 -tp 2`, 'vllm').flags).to.deep.equal({ kvCacheDtype: 'fp8 -tp 2' });
      expect(flagParse('vllm serve m --kv-cache-dtype "fp8 -tp 2', 'vllm').flags).to.deep.equal({ kvCacheDtype: 'fp8 -tp 2' });
    });

    it('returns empty results for empty or whitespace-only input', () => {
      const empty = { flags: {}, recognised: [], unrecognised: [] };
      expect(flagParse('', 'vllm')).to.deep.equal(empty);
      expect(flagParse('  \n\t \\\n', 'vllm')).to.deep.equal(empty);
    });

    it('ignores shell comments', () => {
      expect(flagParse('./llama-server -ngl 99 # -fa on', 'llama.cpp').flags).to.deep.equal({ gpuLayers: 99 });
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
        const result = flagParse(`./llama-server ${args}`, 'llama.cpp');
        expect(result.flags).to.deep.equal(expected);
        expect(result.unrecognised).to.deep.equal(unrecognised);
      });
    }

    it('treats auto as recognised but leaves the field unknown, also over an earlier value', () => {
      expect(flagParse('./llama-server -fa auto', 'llama.cpp')).to.deep.equal({ flags: {}, recognised: ['-fa'], unrecognised: [] });
      expect(flagParse('./llama-server -fa on --flash-attn=AUTO', 'llama.cpp').flags).to.deep.equal({});
    });

    it('does not consume a following positional that is not a boolean word', () => {
      const result = flagParse('vllm serve --enable-prefix-caching org/model -tp 2', 'vllm');
      expect(result.flags).to.deep.equal({ prefixCaching: true, tensorParallel: 2 });
    });
  });

  describe('--speculative-config', () => {
    const json = '{"method":"eagle","model":"org/draft","num_speculative_tokens":3,"draft_tensor_parallel_size":1}';
    const expected = { specMethod: 'eagle', specModel: 'org/draft', specNumTokens: 3, specDraftTp: 1, specDecoding: true };

    it('reads method, model, num_speculative_tokens and draft_tensor_parallel_size from quoted JSON', () => {
      expect(flagParse(`vllm serve m --speculative-config '${json}'`, 'vllm')).to.deep.equal({
        flags: expected,
        recognised: ['--speculative-config'],
        unrecognised: [],
      });
    });

    it('accepts the = form and the underscore spelling', () => {
      expect(flagParse(`vllm serve m --speculative-config='${json}'`, 'vllm').flags).to.deep.equal(expected);
      expect(flagParse(`vllm serve m --speculative_config '${json}'`, 'vllm').flags).to.deep.equal(expected);
    });

    it('accepts JSON with escaped quotes inside a double-quoted argument', () => {
      const result = flagParse('vllm serve m --speculative-config "{\\"method\\": \\"ngram\\", \\"num_speculative_tokens\\": 4}"', 'vllm');
      expect(result.flags).to.deep.equal({ specMethod: 'ngram', specNumTokens: 4, specDecoding: true });
    });

    it('ignores malformed JSON, reports the flag as unrecognised and does not throw', () => {
      expect(flagParse(`vllm serve m --speculative-config '{"method":' -tp 2`, 'vllm')).to.deep.equal({
        flags: { tensorParallel: 2 },
        recognised: ['-tp'],
        unrecognised: ['--speculative-config'],
      });
      expect(flagParse('vllm serve m --speculative-config [1,2]', 'vllm').unrecognised).to.deep.equal(['--speculative-config']);
    });
  });

  describe('engine-specific flags', () => {
    it('maps --quantization to sglangQuant for sglang and to engineQuant for other engines', () => {
      expect(flagParse('python -m sglang.launch_server --quantization awq', 'sglang').flags).to.deep.equal({ sglangQuant: 'awq' });
      expect(flagParse('vllm serve m --quantization awq', 'vllm').flags).to.deep.equal({ engineQuant: 'awq' });
    });

    it('maps --mtp-num-draft-tokens only for vllm', () => {
      expect(flagParse('vllm serve m --mtp-num-draft-tokens 1', 'vllm').flags).to.deep.equal({ mtpEnabled: true, mtpDraftLayers: 1 });
      expect(flagParse('./llama-server --mtp-num-draft-tokens 1', 'llama.cpp')).to.deep.equal({
        flags: {},
        recognised: [],
        unrecognised: ['--mtp-num-draft-tokens'],
      });
    });
  });

  describe('speculative decoding', () => {
    for (const [args, engine, expected] of [
      ['--speculative-model org/d', 'vllm', { specDraftModel: 'org/d', specDecoding: true }],
      ['--num-speculative-tokens 5', 'vllm', { specNumTokens: 5, specDecoding: true }],
      ['--speculative-algorithm NGRAM', 'sglang', { specMethod: 'NGRAM', specDecoding: true }],
      [
        `--speculative-config '{"method":"ngram","prompt_lookup_max":4}'`,
        'vllm',
        { specMethod: 'ngram', specNgramSize: 4, specDecoding: true },
      ],
    ] as [string, string, ParsedEngineFlags][]) {
      it(`sets specDecoding=true for "${args}"`, () => {
        expect(flagParse(`serve ${args}`, engine).flags).to.deep.equal(expected);
      });
    }

    it('leaves specDecoding unset when no speculative field is set', () => {
      expect(flagParse('vllm serve m -tp 2 --mtp-num-draft-tokens 1', 'vllm').flags).to.not.have.property('specDecoding');
    });
  });

  describe('unrecognised and invalid input', () => {
    it('lists unknown flags without their values and does not fail', () => {
      expect(flagParse('vllm serve m --max-num-batched-tokens=8192 --trust-remote-code --served-model-name x -tp 2', 'vllm')).to.deep.equal(
        {
          flags: { tensorParallel: 2 },
          recognised: ['-tp'],
          unrecognised: ['--max-num-batched-tokens', '--trust-remote-code', '--served-model-name'],
        },
      );
    });

    it('does not set a numeric field from a non-numeric value and lists the flag as unrecognised', () => {
      expect(flagParse('./llama-server -ngl all -fa', 'llama.cpp')).to.deep.equal({
        flags: { flashAttn: true },
        recognised: ['-fa'],
        unrecognised: ['-ngl'],
      });
    });

    it('rejects non-integer values for integer fields but accepts them for float fields', () => {
      expect(flagParse('vllm serve m -tp 2.5 --gpu-memory-utilization .9', 'vllm')).to.deep.equal({
        flags: { gpuMemUtil: 0.9 },
        recognised: ['--gpu-memory-utilization'],
        unrecognised: ['-tp'],
      });
    });

    it('does not range-check values', () => {
      expect(flagParse('vllm serve m --gpu-memory-utilization 7 -tp 0', 'vllm').flags).to.deep.equal({ gpuMemUtil: 7, tensorParallel: 0 });
    });

    it('lists a value flag with a missing value (end of input or followed by a flag) as unrecognised', () => {
      expect(flagParse('./llama-server -ngl', 'llama.cpp')).to.deep.equal({ flags: {}, recognised: [], unrecognised: ['-ngl'] });
      expect(flagParse('./llama-server -ngl -fa', 'llama.cpp')).to.deep.equal({
        flags: { flashAttn: true },
        recognised: ['-fa'],
        unrecognised: ['-ngl'],
      });
    });

    it('never throws for odd input', () => {
      for (const input of ['"', "'", '\\', '--', '-', '--=', '-ngl=', '"\\', '#', '--speculative-config', '=\\\r\n']) {
        expect(() => flagParse(input, 'vllm'), input).to.not.throw();
      }
    });
  });

  describe('spelling and ordering', () => {
    it('accepts underscore spellings as the hyphen form and reports them as written', () => {
      expect(flagParse('vllm serve m --tensor_parallel_size 2 --gpu_memory_utilization=0.9', 'vllm')).to.deep.equal({
        flags: { tensorParallel: 2, gpuMemUtil: 0.9 },
        recognised: ['--tensor_parallel_size', '--gpu_memory_utilization'],
        unrecognised: [],
      });
    });

    it('matches flags case-sensitively', () => {
      expect(flagParse('./llama-server -NP 4 -Ngl 9', 'llama.cpp')).to.deep.equal({
        flags: {},
        recognised: [],
        unrecognised: ['-NP', '-Ngl'],
      });
    });

    it('lets a later occurrence of a flag (or an alias) win', () => {
      expect(flagParse('./llama-server -ngl 10 --n-gpu-layers 20 -ngl 30 -fa on -fa off', 'llama.cpp')).to.deep.equal({
        flags: { gpuLayers: 30, flashAttn: false },
        recognised: ['-ngl', '--n-gpu-layers', '-fa'],
        unrecognised: [],
      });
    });

    it('reports numParallel and concurrency, and specDraftModel and specModel, as written without aliasing', () => {
      const result = flagParse(
        `vllm serve m --parallel 2 --concurrency 8 --speculative-model org/a --speculative-config '{"model":"org/b"}'`,
        'vllm',
      );
      expect(result.flags).to.deep.equal({
        numParallel: 2,
        concurrency: 8,
        specDraftModel: 'org/a',
        specModel: 'org/b',
        specDecoding: true,
      });
    });
  });

  describe('the top-level fields a command states', () => {
    // Real commands as people paste them, with no engine submitted: the program names it.
    const commands: [engine: string, command: string, fields: object, flags: ParsedEngineFlags][] = [
      [
        'llama-server (hub model, context)',
        './build/bin/llama-server -hf ggml-org/gemma-3-4b-it-GGUF:Q4_K_M -c 8192 -ngl 99 -fa on --port 8080',
        { engineName: 'llama.cpp', hfId: 'ggml-org/gemma-3-4b-it-GGUF', contextLength: 8192 },
        { gpuLayers: 99, flashAttn: true },
      ],
      [
        'llama-server (local file)',
        'llama-server -m ~/models/Qwen2.5-7B-Instruct-Q4_K_M.gguf --ctx-size 32768 -np 4',
        { engineName: 'llama.cpp', contextLength: 32768 },
        { numParallel: 4 },
      ],
      ['llama-cli', 'llama-cli -m model.gguf -c 4096 -n 256 -p "Hello"', { engineName: 'llama.cpp', contextLength: 4096 }, {}],
      [
        'llama-bench',
        './build/bin/llama-bench -m models/llama-3.1-8b-q4_k_m.gguf -p 512 -n 128 -d 4096 -b 2048 -ngl 99 -fa 1',
        { engineName: 'llama.cpp', promptTokens: 512, outputTokens: 128, prefillTokens: 4096 },
        { gpuLayers: 99, flashAttn: true },
      ],
      [
        'llama-bench, long spellings',
        'llama-bench -m m.gguf --n-prompt 0 --n-gen 256 --n-depth 0',
        { engineName: 'llama.cpp', promptTokens: 0, outputTokens: 256, prefillTokens: 0 },
        {},
      ],
      [
        'vllm serve',
        'vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192 --tensor-parallel-size 2',
        { engineName: 'vllm', hfId: 'meta-llama/Llama-3.1-8B-Instruct', contextLength: 8192 },
        { tensorParallel: 2 },
      ],
      [
        'vllm api_server module',
        'python -m vllm.entrypoints.openai.api_server --model Qwen/Qwen2.5-7B-Instruct --max-model-len=16384',
        { engineName: 'vllm', hfId: 'Qwen/Qwen2.5-7B-Instruct', contextLength: 16384 },
        {},
      ],
      [
        'vllm in docker',
        'docker run --runtime nvidia --gpus all -p 8000:8000 vllm/vllm-openai:latest --model mistralai/Mistral-7B-Instruct-v0.3',
        { engineName: 'vllm', hfId: 'mistralai/Mistral-7B-Instruct-v0.3' },
        {},
      ],
      [
        'sglang',
        'python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --context-length 32768 --tp 2 --port 30000',
        { engineName: 'sglang', hfId: 'meta-llama/Llama-3.1-8B-Instruct', contextLength: 32768 },
        { tensorParallel: 2 },
      ],
      [
        'ollama with its settings',
        'OLLAMA_FLASH_ATTENTION=1 OLLAMA_KV_CACHE_TYPE=q8_0 OLLAMA_NUM_PARALLEL=4 OLLAMA_CONTEXT_LENGTH=8192 ollama serve',
        { engineName: 'ollama', contextLength: 8192 },
        { flashAttn: true, kvCacheDtype: 'q8_0', numParallel: 4 },
      ],
      [
        'ollama run of a hub GGUF',
        'ollama run hf.co/bartowski/Llama-3.2-3B-Instruct-GGUF:Q4_K_M --verbose',
        { engineName: 'ollama', hfId: 'bartowski/Llama-3.2-3B-Instruct-GGUF' },
        {},
      ],
      ['ollama run of a library model', 'ollama run llama3.1:8b --verbose', { engineName: 'ollama' }, {}],
      [
        'mlx_lm.server',
        'mlx_lm.server --model mlx-community/Llama-3.2-3B-Instruct-4bit --port 8080',
        { engineName: 'mlx', hfId: 'mlx-community/Llama-3.2-3B-Instruct-4bit' },
        {},
      ],
      [
        'python -m mlx_lm.server',
        'python -m mlx_lm.server --model mlx-community/Qwen3-4B-4bit',
        { engineName: 'mlx', hfId: 'mlx-community/Qwen3-4B-4bit' },
        {},
      ],
      ['tgi', 'text-generation-launcher --model-id meta-llama/Llama-3.1-8B-Instruct --max-input-tokens 4096', { engineName: 'tgi' }, {}],
    ];
    for (const [name, command, fields, flags] of commands) {
      it(`${name}: ${JSON.stringify(fields)}`, () => {
        const result = parseCommandSnippet(command, '');
        expect(result.fields).to.deep.equal(fields);
        expect(result.flags).to.deep.equal(flags);
      });
    }

    it("treats python -m as the interpreter's switch, not an unmapped -m flag", () => {
      expect(parseCommandSnippet('python -m sglang.launch_server --model-path org/m', 'sglang').unrecognised).to.deep.equal([]);
      expect(parseCommandSnippet('python3.11 -m some.other.tool --port 1', '').unrecognised).to.deep.equal(['--port']);
    });

    it("reads no model id from llama.cpp's -m or --model (a local file) or from a path", () => {
      expect(parseCommandSnippet('llama-server -m org/model.gguf --model x/y', 'llama.cpp').fields).to.deep.equal({
        engineName: 'llama.cpp',
      });
      expect(parseCommandSnippet('vllm serve /data/models/llama --model ./models/llama', 'vllm').fields).to.deep.equal({
        engineName: 'vllm',
      });
      expect(parseCommandSnippet('vllm serve --model models/llama-8b.gguf', 'vllm').unrecognised).to.deep.equal(['--model']);
    });

    it("reads llama.cpp's -c 0 (the model's own context) as stated without a number", () => {
      expect(parseCommandSnippet('llama-server -m m.gguf -c 0', '')).to.deep.include({
        fields: { engineName: 'llama.cpp' },
        recognised: ['-c'],
      });
      expect(parseCommandSnippet('llama-server -c 4096 -c 0', '').fields).to.not.have.property('contextLength');
    });

    it("fills nothing from llama-bench's comma lists, which are several runs", () => {
      const result = parseCommandSnippet('llama-bench -m m.gguf -p 512,1024 -n 128,256 -d 0,4096 -fa 0,1 -ngl 99', '');
      expect(result.fields).to.deep.equal({ engineName: 'llama.cpp' });
      expect(result.flags).to.deep.equal({ gpuLayers: 99 });
      expect(result.unrecognised).to.include.members(['-p', '-n', '-d', '-fa']);
    });

    it('reads -p, -n and -d only from llama-bench (elsewhere they mean other things)', () => {
      expect(parseCommandSnippet('llama-cli -m m.gguf -p "Hi" -n 64', '').fields).to.deep.equal({ engineName: 'llama.cpp' });
      expect(parseCommandSnippet('docker run -d -p 8080:8080 ghcr.io/ggml-org/llama.cpp:server -c 2048', '').fields).to.deep.equal({
        engineName: 'llama.cpp',
        contextLength: 2048,
      });
    });

    it("never fills batchSize from llama-bench's -b, its prompt batch in tokens", () => {
      const result = parseCommandSnippet('llama-bench -m m.gguf -b 512 -ub 256', '');
      expect(result.fields).to.deep.equal({ engineName: 'llama.cpp' });
      expect(result.unrecognised).to.include('-b');
    });

    it("uses the submitted engine over the program's for engine-specific flags", () => {
      // -c is llama.cpp's context; for another engine it is not read.
      expect(parseCommandSnippet('llama-server -c 8192', 'vllm').fields).to.deep.equal({ engineName: 'llama.cpp' });
      expect(parseCommandSnippet('./server -c 8192', 'llama.cpp').fields).to.deep.equal({ contextLength: 8192 });
    });

    it('reads Ollama settings given to docker or exported, switches off and unknown values', () => {
      expect(parseCommandSnippet('docker run -e OLLAMA_FLASH_ATTENTION=0 -e OLLAMA_NUM_PARALLEL=2 ollama/ollama', '')).to.deep.equal({
        flags: { flashAttn: false, numParallel: 2 },
        fields: { engineName: 'ollama' },
        recognised: ['OLLAMA_FLASH_ATTENTION', 'OLLAMA_NUM_PARALLEL'],
        unrecognised: ['-e'],
      });
      expect(parseCommandSnippet('export OLLAMA_KV_CACHE_TYPE=q4_0\nollama serve', '').flags).to.deep.equal({ kvCacheDtype: 'q4_0' });
      expect(parseCommandSnippet('OLLAMA_NUM_PARALLEL=many ollama serve', '')).to.deep.include({
        flags: {},
        unrecognised: ['OLLAMA_NUM_PARALLEL'],
      });
      expect(parseCommandSnippet('CUDA_VISIBLE_DEVICES=0 OLLAMA_HOST=0.0.0.0 ollama serve', '')).to.deep.include({
        recognised: [],
        unrecognised: [],
      });
    });

    it('names no engine when no known program is in the command', () => {
      expect(parseCommandSnippet('./my-server --max-model-len 4096', '').fields).to.deep.equal({ contextLength: 4096 });
    });
  });
});
