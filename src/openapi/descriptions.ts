/**
 * Reader-facing descriptions of fields and query parameters, by name. The zod schemas give
 * types, bounds and enums; these add the meaning (from spec/interface.md and DECISIONS.md).
 * They are applied to the generated JSON Schemas where a property has no description yet.
 */

/** Body fields: submission, hardware, engine flags, setups, keys, reactions. */
export const fieldDescriptions: Record<string, string> = {
  // Submission
  hfId: 'Model id on the Hugging Face hub, `<org>/<model>`; checked against the hub (404 when it does not exist).',
  hardware: 'The machine: a union on `hwClass` (`DISCRETE_GPU`, `UNIFIED` or `CPU_ONLY`), each class with its own required fields.',
  engineName: 'Inference engine, lowercase and exact (see the enum).',
  quantization: 'Weight format as the engine names it, free text, e.g. Q4_K_M, AWQ, fp8, bf16.',
  tokSOut: 'Output (decode) tokens per second.',
  tokSPrefill: 'Prefill (prompt processing) tokens per second.',
  tokSTotal: 'Total tokens per second (prompt + output).',
  ttftMs: 'Time to first token, milliseconds.',
  peakVramGb: 'Peak VRAM (or unified memory) used, GB.',
  modelRevision: 'Git revision, branch or commit of the model on the hub.',
  engineVersion: 'Engine version or release tag, e.g. b6120 or 0.10.1.',
  engineRepository: 'HTTP(S) URL of the engine source; defaults to the canonical repository for freetoken and ninfer.',
  engineBuild: 'How the engine was built (build flags, wheel, container tag).',
  engineCommit: 'Engine git commit, 7-64 hex characters (stored lower-case).',
  backend: 'Compute backend, e.g. cuda, rocm, metal, vulkan, cpu.',
  promptTokens: 'Prompt length of the measured requests, tokens.',
  outputTokens: 'Generated tokens per measured request.',
  contextLength: 'Context window the engine was started with, tokens.',
  batchSize: 'Sequences generated together per request (revision 3: aggregate active sequences = batchSize x concurrency).',
  prefillTokens: 'Tokens already in the KV cache before generation (0 = fresh run).',
  gpuPowerWatts:
    'Watts per GPU during the run, one entry per card (on a CPU-only run, per CPU package; on an Apple chip, the chip); the server sums them into totalPowerWatts. Say how you got them with powerSource (revision 3): `measured` during the timed window, else they count as `stated`.',
  hardwareCost: 'Self-reported purchase records; `component` must be a canonical name from hardwareCostComponentNames.',
  notes: 'Free text: how it was measured, anything unusual.',
  engineFlags:
    'Engine settings. With engineFlags, commandSnippet is required (revisions 2, 3); the server parses flags from it and explicit fields override parsed ones.',
  // hardwareCost items
  component: 'Canonical hardware name (see hardwareOptions.hardwareCostComponentNames in the agent-context).',
  condition: 'Condition when bought.',
  yearPurchased: 'Year of purchase, 1990 to the current year.',
  price: 'Price paid, in `currency`.',
  currency: 'ISO 4217 code from the accepted list.',
  // Hardware
  hwClass: 'DISCRETE_GPU: graphics cards and discrete accelerators; UNIFIED: shared-memory chips; CPU_ONLY: no accelerator.',
  gpuName: 'GPU model (a canonical catalogue name lets the roofline find its bandwidth).',
  gpuCount: 'Number of identical cards (default 1); derived when `gpus` is given.',
  vramGb: 'VRAM per card, GB.',
  gpus: 'Cards by model, for mixed setups; give either gpuName/vramGb or gpus, not both.',
  count: 'Cards of this model.',
  cpu: 'CPU model.',
  ramGb: 'System RAM, GB.',
  os: 'Operating system, e.g. Ubuntu 24.04, Windows 11, macOS 15.',
  powerWatts: 'TDP or measured draw of the machine, watts.',
  chipVendor: 'Chip vendor, e.g. Apple, AMD, Qualcomm, NVIDIA.',
  chipFamily: 'Chip family or generation, e.g. M4, Ryzen AI Max+.',
  chipVariant: 'Tier or model, e.g. Max, Pro, 395, Base.',
  unifiedMemoryGb: 'Unified memory, GB.',
  npuTops: 'NPU throughput, TOPS.',
  // Engine flags
  commandSnippet:
    'The full launch or benchmark command; engine flags are parsed from it, and in a submission also the context length and llama-bench sizes (-p, -n, -d) the body leaves out.',
  tensorParallel: 'Tensor-parallel size.',
  pipelineParallel: 'Pipeline-parallel size.',
  gpuLayers: 'Layers offloaded to the GPU (llama.cpp -ngl).',
  cpuLayers: 'Layers kept on the CPU.',
  cpuOffloadGb: 'GB of weights offloaded to CPU memory.',
  splitMode: 'How the model is split across GPUs (llama.cpp --split-mode).',
  gpuMemUtil: 'Fraction of GPU memory the engine may use (0-1).',
  kvCacheDtype: 'KV-cache data type, e.g. q8_0, q4_0, fp8, fp16, auto.',
  kvCacheSizeMb: 'KV-cache size, MB.',
  prefixCaching: 'Prefix caching on.',
  attentionBackend: 'Attention kernel, e.g. flash_attn, xformers, sdpa, triton.',
  flashAttn: 'Flash attention on.',
  chunkedPrefill: 'Chunked prefill on.',
  prefillChunkSize: 'Prefill chunk size, tokens.',
  contBatching: 'Continuous batching on.',
  maxRunningSeqs: 'Maximum sequences running at once.',
  schedulerDelayFactor: 'Scheduler delay factor.',
  ropeScaling: 'RoPE scaling method, e.g. yarn, linear, dynamic.',
  ropeScale: 'RoPE scale factor.',
  yarnExtFactor: 'YaRN extrapolation factor.',
  engineQuant: 'Engine-side quantization flag value.',
  sglangQuant: 'SGLang --quantization value.',
  concurrency: 'Simultaneous benchmark requests.',
  numParallel: 'Alias of concurrency (ignored when concurrency is given).',
  specDecoding: 'Speculative decoding on (implied by any spec* field).',
  specMethod: 'Speculative method, e.g. eagle, ngram, draft_model.',
  specModel: 'Draft model id.',
  specDraftModel: 'Alias of specModel.',
  specNumTokens: 'Speculative tokens per step.',
  specNgramSize: 'N-gram size for prompt-lookup speculation.',
  specDraftTp: 'Tensor-parallel size of the draft model.',
  specDraftWindowSize: 'Draft sliding-window size.',
  mtpEnabled: 'Multi-token prediction on.',
  mtpDraftLayers: 'MTP draft layers.',
  temperature: 'Sampling temperature.',
  topP: 'Top-p.',
  topK: 'Top-k.',
  minP: 'Min-p.',
  repeatPenalty: 'Repeat penalty.',
  mirostat: 'Mirostat mode: 0, 1 or 2.',
  extraFlags: 'Any other flags, free text.',
  // Setups, keys, reactions
  name: 'Name, unique per account (case-insensitive) for setups.',
  description: 'Free text; empty or null clears it.',
  isDefault: 'The default setup pre-fills the submit form; making one default clears the others.',
  expiresAt: 'ISO-8601 date-time in the future; omit or null for a key that never expires.',
  emoji: 'One of the reaction emojis, or null to take your reaction back.',
};

/** Query parameters, per operation family (the same name can mean different things). */
export const parameterDescriptions: Record<'results' | 'leaderboard' | 'models' | 'modelSearch' | 'setups', Record<string, string>> = {
  // The filters' own descriptions are in the facet registry (src/runs/facets.ts).
  results: {
    limit: 'Page size.',
    offset: 'Runs to skip.',
    format: 'Beyond the spec: `csv` or `jsonl` downloads every matching run instead of one page.',
  },
  leaderboard: {
    limit: 'Page size.',
    offset: 'Rows to skip.',
    sort: 'Beyond the spec: rank by this metric (ttftMs ascending, the others descending); default tokSOut.',
    bestPer: 'Beyond the spec: `hardware` keeps only the best run per hardware profile.',
    format: 'Beyond the spec: `csv` or `jsonl` downloads every matching row in rank order.',
  },
  models: {
    search: 'Case-insensitive text over hfId, display name and family.',
    tree: '`true`: base models with their finetunes nested, instead of a flat list.',
    limit: 'Page size.',
    offset: 'Models to skip.',
  },
  modelSearch: {
    q: 'Case-insensitive words over hfId, display name and family (required): every word must appear, in any order, with `-` and `_` ignored (`llama 3.1 8b instruct`, `qwen3moe` finds `qwen3_moe`).',
    limit: 'Most results to return.',
  },
  setups: {
    limit: 'Page size (at most the per-account cap, so the default page holds them all).',
    offset: 'Setups to skip.',
  },
};

type Json = { [key: string]: unknown };

/**
 * Adds `descriptions[name]` to every property called `name` that has no description yet,
 * at any depth (nested hardware, flags and cost items included). Mutates and returns `schema`.
 */
export function describeProperties<S extends Json>(schema: S, descriptions: Record<string, string> = fieldDescriptions): S {
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    const properties = (node as Json).properties as Record<string, Json> | undefined;
    if (properties && typeof properties === 'object') {
      for (const [name, property] of Object.entries(properties)) {
        const text = Object.hasOwn(descriptions, name) ? descriptions[name] : undefined;
        if (text && property && typeof property === 'object' && property.description === undefined) property.description = text;
      }
    }
    for (const value of Object.values(node)) visit(value);
  };
  visit(schema);
  return schema;
}
