// Parses an engine launch or benchmark command (llama.cpp, vllm, sglang, ...) into
// engine-flag fields and the top-level submission fields it states (engine, model id,
// context length, llama-bench's sizes). Pure and table-driven: to support a new flag, add a
// row to FLAG_TABLE (an environment setting: ENV_TABLE; a program: PROGRAMS). Values are
// only type-parsed here; bounds are checked by the zod schemas after merging with explicit fields.

export interface ParsedEngineFlags {
  tensorParallel?: number;
  pipelineParallel?: number;
  gpuLayers?: number;
  cpuOffloadGb?: number;
  splitMode?: string;
  gpuMemUtil?: number;
  kvCacheDtype?: string;
  prefixCaching?: boolean;
  attentionBackend?: string;
  flashAttn?: boolean;
  chunkedPrefill?: boolean;
  prefillChunkSize?: number;
  contBatching?: boolean;
  maxRunningSeqs?: number;
  schedulerDelayFactor?: number;
  ropeScaling?: string;
  ropeScale?: number;
  yarnExtFactor?: number;
  engineQuant?: string;
  sglangQuant?: string;
  concurrency?: number;
  numParallel?: number;
  specDecoding?: boolean;
  specMethod?: string;
  specModel?: string;
  specDraftModel?: string;
  specNumTokens?: number;
  specNgramSize?: number;
  specDraftTp?: number;
  mtpEnabled?: boolean;
  mtpDraftLayers?: number;
  temperature?: number;
  topP?: number;
  topK?: number;
  minP?: number;
  repeatPenalty?: number;
  mirostat?: number;
}

/** Top-level submission fields a command can state (beyond `engineFlags`). */
export interface CommandStatedFields {
  /** From the program: `llama-server` -> llama.cpp, `python -m sglang.launch_server` -> sglang, ... */
  engineName?: string;
  /** A hub id: `vllm serve <id>`, `--model <id>` (not llama.cpp, whose `-m` is a file), `-hf org/model[:quant]`. */
  hfId?: string;
  contextLength?: number;
  promptTokens?: number;
  outputTokens?: number;
  prefillTokens?: number;
}

export interface CommandSnippetParse {
  flags: ParsedEngineFlags;
  fields: CommandStatedFields;
  /** Flags and environment settings mapped to a field. */
  recognised: string[];
  unrecognised: string[];
}

type Parsed = ParsedEngineFlags & Omit<CommandStatedFields, 'engineName'>;
type Field = keyof Parsed;
type FieldOf<T> = { [K in Field]-?: NonNullable<Parsed[K]> extends T ? K : never }[Field];
/** Which commands a row applies to: by engine (the submitted one, else the program's) and by program. */
type EngineFilter = { engines?: string[]; exceptEngines?: string[]; programs?: string[] };
type Row = EngineFilter & { flags: string[] } & (
    | { kind: 'int' | 'float'; field: FieldOf<number>; also?: ParsedEngineFlags; zeroUnset?: boolean }
    | { kind: 'string'; field: FieldOf<string> }
    | { kind: 'modelId'; field: 'hfId' }
    | { kind: 'bool'; field: FieldOf<boolean>; negate?: boolean }
    | { kind: 'specConfig' }
  );

/** Fields that are top-level submission fields, not engine flags. */
const STATED_FIELDS = new Set<string>(['hfId', 'contextLength', 'promptTokens', 'outputTokens', 'prefillTokens']);

// Flags are written in their hyphen form; underscore spellings are normalised before lookup.
const FLAG_TABLE: Row[] = [
  // --- The spec's "Command flag to field mapping" ---
  { flags: ['-ngl', '--n-gpu-layers'], kind: 'int', field: 'gpuLayers' },
  { flags: ['-tp', '--tensor-parallel-size'], kind: 'int', field: 'tensorParallel' },
  { flags: ['--pipeline-parallel-size'], kind: 'int', field: 'pipelineParallel' },
  { flags: ['--gpu-memory-utilization'], kind: 'float', field: 'gpuMemUtil' },
  { flags: ['--quantization'], kind: 'string', field: 'sglangQuant', engines: ['sglang'] },
  { flags: ['--quantization'], kind: 'string', field: 'engineQuant', exceptEngines: ['sglang'] },
  { flags: ['--kv-cache-dtype'], kind: 'string', field: 'kvCacheDtype' },
  { flags: ['--enable-prefix-caching', '--pc'], kind: 'bool', field: 'prefixCaching' },
  { flags: ['-fa', '--flash-attn'], kind: 'bool', field: 'flashAttn' },
  { flags: ['--enable-chunked-prefill'], kind: 'bool', field: 'chunkedPrefill' },
  { flags: ['--max-running-requests', '--max-num-seqs'], kind: 'int', field: 'maxRunningSeqs' },
  { flags: ['--parallel', '-np'], kind: 'int', field: 'numParallel' },
  { flags: ['--concurrency'], kind: 'int', field: 'concurrency' },
  { flags: ['--speculative-model', '--draft-model'], kind: 'string', field: 'specDraftModel' },
  { flags: ['--num-speculative-tokens'], kind: 'int', field: 'specNumTokens' },
  { flags: ['--speculative-draft-tensor-parallel-size'], kind: 'int', field: 'specDraftTp' },
  { flags: ['--rope-scaling'], kind: 'string', field: 'ropeScaling' },
  { flags: ['--rope-scale'], kind: 'float', field: 'ropeScale' },
  { flags: ['--yarn-ext-factor'], kind: 'float', field: 'yarnExtFactor' },
  { flags: ['--cpu-offload-gb'], kind: 'float', field: 'cpuOffloadGb' },
  { flags: ['--split-mode'], kind: 'string', field: 'splitMode' },
  { flags: ['--temp', '--temperature'], kind: 'float', field: 'temperature' },
  { flags: ['--top-p'], kind: 'float', field: 'topP' },
  { flags: ['--top-k'], kind: 'int', field: 'topK' },
  { flags: ['--min-p'], kind: 'float', field: 'minP' },
  { flags: ['--repeat-penalty'], kind: 'float', field: 'repeatPenalty' },
  { flags: ['--mirostat'], kind: 'int', field: 'mirostat' },
  { flags: ['--scheduler-delay-factor'], kind: 'float', field: 'schedulerDelayFactor' },
  { flags: ['--mtp-num-draft-tokens'], kind: 'int', field: 'mtpDraftLayers', engines: ['vllm'], also: { mtpEnabled: true } },
  { flags: ['--speculative-config'], kind: 'specConfig' },

  // --- Beyond the spec: well-known spellings of the same settings ---
  { flags: ['--gpu-layers'], kind: 'int', field: 'gpuLayers' }, // llama.cpp alias of -ngl
  { flags: ['-sm'], kind: 'string', field: 'splitMode' }, // llama.cpp
  { flags: ['-ctk', '--cache-type-k'], kind: 'string', field: 'kvCacheDtype' }, // llama.cpp
  { flags: ['-pp', '--pp-size'], kind: 'int', field: 'pipelineParallel' }, // vllm short form, sglang
  { flags: ['--tp-size', '--tp'], kind: 'int', field: 'tensorParallel' }, // sglang
  { flags: ['--mem-fraction-static'], kind: 'float', field: 'gpuMemUtil' }, // sglang
  { flags: ['--chunked-prefill-size'], kind: 'int', field: 'prefillChunkSize' }, // sglang
  { flags: ['--attention-backend'], kind: 'string', field: 'attentionBackend' }, // sglang, vllm
  { flags: ['--no-enable-prefix-caching', '--disable-radix-cache'], kind: 'bool', field: 'prefixCaching', negate: true },
  { flags: ['--no-enable-chunked-prefill'], kind: 'bool', field: 'chunkedPrefill', negate: true }, // vllm
  { flags: ['--cont-batching', '-cb'], kind: 'bool', field: 'contBatching' }, // llama.cpp
  { flags: ['--no-cont-batching', '-nocb'], kind: 'bool', field: 'contBatching', negate: true }, // llama.cpp
  { flags: ['--draft-max', '--draft', '--draft-n'], kind: 'int', field: 'specNumTokens' }, // llama.cpp
  { flags: ['-md', '--model-draft'], kind: 'string', field: 'specDraftModel' }, // llama.cpp
  { flags: ['--speculative-draft-model-path', '--draft-model-path'], kind: 'string', field: 'specDraftModel' }, // sglang
  { flags: ['--speculative-num-draft-tokens'], kind: 'int', field: 'specNumTokens' }, // sglang
  { flags: ['--speculative-algorithm'], kind: 'string', field: 'specMethod' }, // sglang
  { flags: ['--ngram-prompt-lookup-max'], kind: 'int', field: 'specNgramSize' }, // older vllm
  { flags: ['--max-concurrency'], kind: 'int', field: 'concurrency' }, // vllm bench serve

  // --- Top-level submission fields the command states ---
  // llama.cpp's -c 0 means "the model's own context": stated, but no number.
  { flags: ['-c'], kind: 'int', field: 'contextLength', engines: ['llama.cpp'], zeroUnset: true },
  { flags: ['--ctx-size'], kind: 'int', field: 'contextLength', zeroUnset: true }, // llama.cpp and its forks
  { flags: ['--max-model-len'], kind: 'int', field: 'contextLength' }, // vllm
  { flags: ['--context-length'], kind: 'int', field: 'contextLength' }, // sglang
  { flags: ['-hf', '-hfr', '--hf-repo'], kind: 'modelId', field: 'hfId', engines: ['llama.cpp'] },
  // llama.cpp's -m/--model is a local file, never a hub id.
  { flags: ['--model', '--model-path'], kind: 'modelId', field: 'hfId', exceptEngines: ['llama.cpp'] },
  // llama-bench's test sizes. Its -b is the prompt-processing batch in tokens (default 2048),
  // not sequences generated together, so it never fills batchSize.
  { flags: ['-p', '--n-prompt'], kind: 'int', field: 'promptTokens', programs: ['llama-bench'] },
  { flags: ['-n', '--n-gen'], kind: 'int', field: 'outputTokens', programs: ['llama-bench'] },
  { flags: ['-d', '--n-depth'], kind: 'int', field: 'prefillTokens', programs: ['llama-bench'] },
];

/** Environment settings before (or exported ahead of) the command. */
const ENV_TABLE: Record<string, { kind: 'int' | 'string' | 'bool'; field: Field }> = {
  OLLAMA_FLASH_ATTENTION: { kind: 'bool', field: 'flashAttn' },
  OLLAMA_KV_CACHE_TYPE: { kind: 'string', field: 'kvCacheDtype' },
  OLLAMA_NUM_PARALLEL: { kind: 'int', field: 'numParallel' },
  OLLAMA_CONTEXT_LENGTH: { kind: 'int', field: 'contextLength' },
};

/** A program (file name without its directory), a `python -m` module or a container image, and its engine. */
const PROGRAMS: Record<string, string> = {
  'llama-server': 'llama.cpp',
  'llama-cli': 'llama.cpp',
  'llama-bench': 'llama.cpp',
  'llama-batched-bench': 'llama.cpp',
  vllm: 'vllm',
  'vllm.entrypoints.openai.api_server': 'vllm',
  'vllm/vllm-openai': 'vllm',
  'sglang.launch_server': 'sglang',
  'sglang.bench_one_batch': 'sglang',
  'lmsysorg/sglang': 'sglang',
  ollama: 'ollama',
  'ollama/ollama': 'ollama',
  'mlx_lm.server': 'mlx',
  'mlx_lm.generate': 'mlx',
  'mlx_lm.benchmark': 'mlx',
  'text-generation-launcher': 'tgi',
  'huggingface/text-generation-inference': 'tgi',
  'trtllm-serve': 'tensorrt-llm',
  lmdeploy: 'lmdeploy',
  mlc_llm: 'mlc-llm',
  'ggml-org/llama.cpp': 'llama.cpp',
};

// Keys of vllm's --speculative-config JSON object.
const SPEC_CONFIG_KEYS: { key: string; kind: 'int' | 'string'; field: FieldOf<number> | FieldOf<string> }[] = [
  { key: 'method', kind: 'string', field: 'specMethod' },
  { key: 'model', kind: 'string', field: 'specModel' },
  { key: 'num_speculative_tokens', kind: 'int', field: 'specNumTokens' },
  { key: 'draft_tensor_parallel_size', kind: 'int', field: 'specDraftTp' },
  { key: 'prompt_lookup_max', kind: 'int', field: 'specNgramSize' }, // beyond the spec: ngram size
];

const SPEC_FIELDS: Field[] = ['specMethod', 'specModel', 'specDraftModel', 'specNumTokens', 'specNgramSize', 'specDraftTp'];
const BOOL_WORDS: Record<string, boolean | undefined> = {
  on: true,
  true: true,
  '1': true,
  yes: true,
  off: false,
  false: false,
  '0': false,
  no: false,
  auto: undefined,
};

const normalise = (flag: string) => flag.replace(/_/g, '-');
const ROWS_BY_FLAG = new Map<string, Row[]>();
for (const row of FLAG_TABLE) {
  for (const flag of row.flags) ROWS_BY_FLAG.set(flag, [...(ROWS_BY_FLAG.get(flag) ?? []), row]);
}

const INT_RE = /^[+-]?\d+$/;
const FLOAT_RE = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;
const ENV_ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s;
const PYTHON = /^python[\d.]*$/;
// `org/model`, as the hub names it (a file such as `models/x.gguf` is not one).
const HUB_ID = /^[A-Za-z0-9][\w.-]*\/[\w.-]+$/;
const MODEL_FILE = /\.(gguf|bin|safetensors|pt|pth|onnx)$/i;

/** A hub id from a model argument: `org/model`, `org/model:Q4_K_M` (llama.cpp, Ollama tags) or `hf.co/org/model`. */
function hubId(raw: string): string | undefined {
  const id = raw.replace(/^(https:\/\/)?(hf\.co|huggingface\.co)\//, '').replace(/:[^/:]*$/, '');
  return HUB_ID.test(id) && !MODEL_FILE.test(id) ? id : undefined;
}

function parseValue(kind: 'int' | 'float' | 'string' | 'modelId', raw: string): number | string | undefined {
  if (kind === 'string') return raw === '' ? undefined : raw;
  if (kind === 'modelId') return hubId(raw);
  if (!(kind === 'int' ? INT_RE : FLOAT_RE).test(raw)) return undefined;
  const n = Number(raw);
  return Number.isFinite(n) ? n : undefined;
}

/** A flag is a '-'-prefixed token that is not a bare '-'/'--' and not a negative number (a value). */
function isFlag(token: string): boolean {
  return token.length > 1 && token.startsWith('-') && token !== '--' && !FLOAT_RE.test(token);
}

/** Splits like a POSIX shell would (quotes, backslash escapes, line continuations, comments); never throws. */
function tokenize(input: string): string[] {
  const tokens: string[] = [];
  let cur = '';
  let inToken = false;
  let i = 0;
  // Length of a backslash-newline continuation starting at index j (0 if none); CRLF pastes included.
  const continuation = (j: number) => (input[j + 1] === '\n' ? 2 : input[j + 1] === '\r' && input[j + 2] === '\n' ? 3 : 0);
  while (i < input.length) {
    const c = input[i];
    if (c === '\\') {
      const skip = continuation(i);
      if (skip) {
        i += skip;
        continue;
      }
      if (i + 1 < input.length) {
        cur += input[i + 1];
        inToken = true;
      }
      i += 2;
    } else if (c === "'") {
      const end = input.indexOf("'", i + 1);
      const stop = end === -1 ? input.length : end; // unterminated quote runs to the end
      cur += input.slice(i + 1, stop);
      inToken = true;
      i = stop + 1;
    } else if (c === '"') {
      inToken = true;
      i++;
      while (i < input.length && input[i] !== '"') {
        const skip = input[i] === '\\' ? continuation(i) : 0;
        if (skip) {
          i += skip;
          continue;
        }
        // Inside double quotes a backslash only escapes " \ $ ` (as in sh); otherwise it is literal.
        if (input[i] === '\\' && i + 1 < input.length && '"\\$`'.includes(input[i + 1])) i++;
        cur += input[i++];
      }
      i++;
    } else if (/\s/.test(c)) {
      if (inToken) tokens.push(cur);
      cur = '';
      inToken = false;
      i++;
    } else if (c === '#' && !inToken) {
      const nl = input.indexOf('\n', i);
      i = nl === -1 ? input.length : nl;
    } else {
      cur += c;
      inToken = true;
      i++;
    }
  }
  if (inToken) tokens.push(cur);
  return tokens;
}

function rowFor(flag: string, engine: string, program: string | undefined): Row | undefined {
  return ROWS_BY_FLAG.get(normalise(flag))?.find(
    (r) =>
      (!r.engines || r.engines.includes(engine)) &&
      !r.exceptEngines?.includes(engine) &&
      (!r.programs || (program !== undefined && r.programs.includes(program))),
  );
}

interface Program {
  /** Its key in PROGRAMS. */
  name: string;
  engine: string;
  /** A model named by position: `vllm serve <id>`, `ollama run hf.co/<org>/<model>`. */
  modelArgument?: string;
}

/** The `-m` of `python -m <module>`: the interpreter's, not the program's `-m`. */
function pythonModuleSwitches(tokens: string[]): Set<number> {
  const switches = new Set<number>();
  tokens.forEach((token, i) => {
    if (token === '-m' && i > 0 && PYTHON.test(tokens[i - 1].slice(tokens[i - 1].lastIndexOf('/') + 1))) switches.add(i);
  });
  return switches;
}

/** The first token naming a known program, module or image; it may follow env settings, `sudo`, `docker run ...`. */
function findProgram(tokens: string[]): Program | undefined {
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    if (isFlag(token) || ENV_ASSIGNMENT.test(token)) continue;
    const base = token.slice(token.lastIndexOf('/') + 1).replace(/\.exe$/i, '');
    if (PYTHON.test(base) && tokens[i + 1] === '-m' && tokens[i + 2] !== undefined) {
      const name = tokens[i + 2];
      if (Object.hasOwn(PROGRAMS, name)) return { name, engine: PROGRAMS[name] };
      i += 2;
      continue;
    }
    // Images without registry host and tag: ghcr.io/ggml-org/llama.cpp:server -> ggml-org/llama.cpp.
    const image = token
      .replace(/:[^/]*$/, '')
      .split('/')
      .slice(-2)
      .join('/');
    const name = [base, image].find((candidate) => Object.hasOwn(PROGRAMS, candidate));
    if (!name) continue;
    const program: Program = { name, engine: PROGRAMS[name] };
    const [sub, argument] = [tokens[i + 1], tokens[i + 2]];
    const positional = argument !== undefined && !isFlag(argument) ? argument : undefined;
    if (name === 'vllm' && sub === 'serve') program.modelArgument = positional;
    if (name === 'ollama' && (sub === 'run' || sub === 'pull') && positional?.startsWith('hf.co/')) program.modelArgument = positional;
    return program;
  }
  return undefined;
}

/** Environment settings of ENV_TABLE among the tokens (`OLLAMA_NUM_PARALLEL=4 ollama serve`, `-e ...`, `export ...`). */
function applyEnvironment(tokens: string[], flags: Record<string, unknown>, recognised: Set<string>, unrecognised: Set<string>): void {
  for (const token of tokens) {
    const match = ENV_ASSIGNMENT.exec(token);
    if (!match || !Object.hasOwn(ENV_TABLE, match[1])) continue;
    const [, name, raw] = match;
    const { kind, field } = ENV_TABLE[name];
    const word = raw.toLowerCase();
    const value = kind === 'bool' ? (Object.hasOwn(BOOL_WORDS, word) ? BOOL_WORDS[word] : null) : parseValue(kind, raw);
    if (value === null || (value === undefined && kind !== 'bool')) {
      unrecognised.add(name);
      continue;
    }
    if (value === undefined) delete flags[field];
    else flags[field] = value;
    recognised.add(name);
  }
}

/** A comma list of boolean words, as llama-bench's `-fa 0,1`: several runs, so no one value. */
const isBoolList = (raw: string | undefined) =>
  raw !== undefined && /^[^,]+(,[^,]+)+$/.test(raw) && raw.split(',').every((word) => Object.hasOwn(BOOL_WORDS, word.toLowerCase()));

/** Applies a vllm --speculative-config JSON value; returns false when it is not a JSON object. */
function applySpecConfig(raw: string, flags: Record<string, unknown>): boolean {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return false;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return false;
  const obj = parsed as Record<string, unknown>;
  for (const { key, kind, field } of SPEC_CONFIG_KEYS) {
    const v = Object.hasOwn(obj, key) ? obj[key] : undefined;
    if (typeof v !== 'number' && typeof v !== 'string') continue;
    const value = parseValue(kind, String(v));
    if (value !== undefined) flags[field] = value;
  }
  return true;
}

/**
 * `engineName` is the submitted engine; when empty, the program's engine decides which
 * engine-specific rows apply.
 */
export function parseCommandSnippet(snippet: string, engineName: string): CommandSnippetParse {
  const flags: Record<string, unknown> = {};
  const recognised = new Set<string>();
  const unrecognised = new Set<string>();
  // Positionals (model path, VAR=value env prefixes, docker image, ...) are skipped by the flag walk.
  const tokens = typeof snippet === 'string' ? tokenize(snippet) : [];
  const program = findProgram(tokens);
  const given = typeof engineName === 'string' ? engineName.trim().toLowerCase() : '';
  const engine = given || program?.engine || '';
  const consumed = pythonModuleSwitches(tokens);
  const modelArgument = program?.modelArgument === undefined ? undefined : hubId(program.modelArgument);
  if (modelArgument) flags.hfId = modelArgument;
  applyEnvironment(tokens, flags, recognised, unrecognised);

  for (let i = 0; i < tokens.length; i++) {
    if (!isFlag(tokens[i]) || consumed.has(i)) continue;
    const eq = tokens[i].indexOf('=');
    const name = eq === -1 ? tokens[i] : tokens[i].slice(0, eq);
    const inline = eq === -1 ? undefined : tokens[i].slice(eq + 1);
    const row = rowFor(name, engine, program?.name);
    const next = tokens[i + 1];
    let ok = false;

    if (!row) {
      // unknown flag: its value (if any) is a positional and is skipped on the next iteration
    } else if (row.kind === 'bool' && inline === undefined && isBoolList(next)) {
      i++; // `-fa 0,1`: one run per value, none of them the run (number lists fail the int parse below)
    } else if (row.kind === 'bool') {
      // The next token is only a value when it is a boolean word, so `-fa model.gguf` keeps the positional.
      const word = (inline ?? next ?? '').toLowerCase();
      const hasWord = Object.hasOwn(BOOL_WORDS, word);
      if (inline === undefined && hasWord) i++;
      if (inline === undefined || hasWord) {
        const value = inline === undefined && !hasWord ? true : BOOL_WORDS[word];
        if (value === undefined)
          delete flags[row.field]; // `auto`: recognised, but leaves the field unknown
        else flags[row.field] = row.negate ? !value : value;
        ok = true;
      }
    } else {
      let raw = inline;
      if (raw === undefined && next !== undefined && !isFlag(next)) raw = tokens[++i];
      if (raw !== undefined) {
        if (row.kind === 'specConfig') {
          ok = applySpecConfig(raw, flags);
        } else {
          const value = parseValue(row.kind, raw);
          if (value === 0 && 'zeroUnset' in row && row.zeroUnset) {
            delete flags[row.field];
            ok = true;
          } else if (value !== undefined) {
            flags[row.field] = value;
            if ('also' in row) Object.assign(flags, row.also);
            ok = true;
          }
        }
      }
    }
    (ok ? recognised : unrecognised).add(name);
  }

  if (SPEC_FIELDS.some((f) => flags[f] !== undefined)) flags.specDecoding = true;
  const fields: Record<string, unknown> = program ? { engineName: program.engine } : {};
  for (const field of STATED_FIELDS) {
    if (flags[field] === undefined) continue;
    fields[field] = flags[field];
    delete flags[field];
  }
  return {
    flags: flags as ParsedEngineFlags,
    fields: fields as CommandStatedFields,
    recognised: [...recognised],
    unrecognised: [...unrecognised],
  };
}
