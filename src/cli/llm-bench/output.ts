/** The human-readable report of a measurement (stdout), and help texts. */
import type { DepthResult, FigureName, Stat } from './measure.ts';

const ROWS: [FigureName, string, number][] = [
  ['decodeTokS', 'decode tok/s', 1],
  ['ttftMs', 'TTFT ms', 0],
  ['prefillTokS', 'prefill tok/s', 1],
  ['e2eMs', 'end-to-end ms', 0],
  ['totalTokS', 'total tok/s', 1],
  ['engineDecodeTokS', 'engine decode tok/s', 1],
  ['enginePrefillTokS', 'engine prefill tok/s', 1],
];

const cell = (text: string, width: number, left = false) => (left ? text.padEnd(width) : text.padStart(width));

export function resultTable(result: DepthResult, concurrency: number): string {
  const head = [
    `depth ${result.depth}${result.depth ? ` (${result.contextTokens} tokens in context)` : ''}: prompt ${result.promptTokens} tokens, output ${result.outputTokens} tokens, ` +
      `${result.rounds.length} iteration${result.rounds.length === 1 ? '' : 's'} x ${concurrency} stream${concurrency === 1 ? '' : 's'}` +
      (concurrency > 1 ? ' (decode = aggregate of all streams)' : ''),
    `${cell('metric', 22, true)}${cell('median', 10)}${cell('min', 10)}${cell('max', 10)}${cell('spread', 9)}`,
  ];
  const rows = ROWS.flatMap(([name, label, digits]) => {
    const stat: Stat | undefined = result.stats[name];
    if (!stat) return [];
    return [
      `${cell(label, 22, true)}${cell(stat.median.toFixed(digits), 10)}${cell(stat.min.toFixed(digits), 10)}${cell(stat.max.toFixed(digits), 10)}${cell(`${stat.spreadPct.toFixed(1)}%`, 9)}`,
    ];
  });
  const sources = [
    `token counts: ${result.tokenCounts}`,
    result.engineTimings
      ? `engine rows: ${result.engineTimings} (the submission carries the client-side figures, and the engine's own timings as evidence)`
      : 'engine timings: none reported',
  ];
  return [...head, ...rows, ...sources].join('\n');
}

export const EXIT_CODES_HELP = `Exit codes:
  0  success
  1  unexpected error (a bug: please report it)
  2  usage: bad flags or input (malformed key, unreadable file, missing --hf-id)
  3  measurement failed: the engine answered, but did not stream, sent no tokens,
     or does not serve the model
  4  validation failed: the leaderboard refused the payload (dry-run or submission)
  5  server unavailable: the engine or the leaderboard could not be reached,
     answered 5xx, or rate-limited the submission (without --wait)
  6  the leaderboard refused the API key`;

export const MAIN_HELP = `llm-bench: measure a running LLM engine and submit the result to the LLM Bench leaderboard.

Usage:
  llm-bench measure --base-url URL [options]   measure an OpenAI-compatible server or Ollama
  llm-bench submit FILE.json [options]         dry-run and submit a saved payload
  llm-bench reproduce RUN_ID --base-url URL    measure a leaderboard run's recipe on your engine
  llm-bench login [--leaderboard URL]          sign in through the browser and save an API key
  llm-bench <command> --help                   options of a command

${EXIT_CODES_HELP}
`;

export const MEASURE_HELP = `Usage: llm-bench measure --base-url URL [options]

Measures streamed completions: TTFT (to the first generated token), decode tok/s (first to
last token, the server's token counts), prefill tok/s (prompt tokens / TTFT), end-to-end
latency; the median and spread over iterations. A fresh nonce leads every prompt, so no
prefix cache can fake prefill.

Engine:
  --base-url URL          the engine (http://localhost:8080; a trailing /v1 is fine)   [required]
  --api openai|ollama     API to use (default: Ollama's native API when /api/version answers)
  --model NAME            served model name (default: the only one served)
  --engine-key KEY        the engine's own bearer key, if it needs one
  --timeout S             per request, seconds (default 300)

Measurement:
  --prompt-tokens N       prompt length (default 512)
  --max-tokens N          output tokens per request (default 256)
  --iterations N          timed iterations (default 3)
  --warmup N              untimed warm-up requests (default 1)
  --concurrency N         streams in flight at once; decode is then their aggregate (default 1)
  --depth LIST            context depths, e.g. 0,4096,16384: one run per depth (default 0)

What was run (detected where possible; these override):
  --hf-id ORG/MODEL       hub id of the weights (required to submit)
  --quantization Q        e.g. Q4_K_M, AWQ, fp8 (read from the GGUF name / Ollama when possible)
  --engine NAME           engine name (llama.cpp, vllm, sglang, ollama, ...)
  --engine-version V      engine version
  --engine-commit HEX     the engine's git commit (llama.cpp: from /props build_info)
  --engine-build TEXT     how the engine was built (flags, wheel, container tag)
  --backend B             cuda, rocm, metal, vulkan, cpu, ... (default: from the hardware)
  --context-length N      the engine's context size (llama.cpp: from /props)
  --command "..."         the engine's launch command (engineFlags.commandSnippet)
  --notes TEXT            appended to the measurement notes
  --hardware-file FILE    hardware as JSON (the submission's "hardware" object) instead of detection
  --setup NAME            hardware from a saved setup (signs in: LLM_BENCH_USERNAME, LLM_BENCH_PASSWORD)

Power (measured while decoding, submitted as gpuPowerWatts with powerSource "measured"):
  GPUs: nvidia-smi, else rocm-smi, per card; an Apple chip: powermetrics (needs root);
  CPU only: the RAPL counters under /sys/class/powercap. No tool answers: no power.
  --no-power              measure no power
  Environment: LLM_BENCH_NVIDIA_SMI (the nvidia-smi to run), LLM_BENCH_POWERCAP_DIR,
  LLM_BENCH_POWER_INTERVAL_MS (poll interval, default 200)

Evidence (verified runs): the payload carries the SHA-256 and a sample of a timed prompt
and its output, every iteration's figures (samples, sampleStats) and the engine's own
timings where it reports them (llama.cpp timings, Ollama eval counts). A run is verified
when these agree with the submitted figures within 5% and the engine commit or build is named.

Output and submission:
  --json                  stdout carries only JSON (results, payloads, dry-run, submission)
  --out FILE              save the payload(s) to FILE (send later with llm-bench submit FILE)
  --submit                dry-run, then submit each payload
  --api-key KEY           leaderboard key (else LLM_BENCH_API_KEY, else the config file)
  --leaderboard URL       the leaderboard (else LLM_BENCH_URL, else the config file, else http://localhost:3000)
  --wait                  on 429 wait for Retry-After instead of failing

Config file: $LLM_BENCH_CONFIG or ~/.config/llm-bench/config.json, e.g. {"apiKey": "bhk_...", "leaderboard": "https://..."}

${EXIT_CODES_HELP}
`;

export const REPRODUCE_HELP = `Usage: llm-bench reproduce RUN_ID --base-url URL [measure options] [--submit]

Reads the run's recipe from the leaderboard (GET /api/speed-tests/RUN_ID: the weights, the
engine build, the engine flags that shape speed, the workload) and measures the same
workload on your engine: --hf-id, --quantization, --prompt-tokens, --max-tokens, --depth,
--concurrency, --context-length and --command come from the recipe (a flag you give wins).
Prints your decode tok/s next to the run's. With --submit (and an API key) the result is
submitted with "replicates": RUN_ID; the leaderboard counts it among the run's
replications when the recipe and the device match and another user measured it (your
engine's version is part of the recipe), and the run's page says why when it does not.
Token counts within 5% of the recipe's are submitted as the recipe's.

Takes every option of "llm-bench measure" (see llm-bench measure --help).

${EXIT_CODES_HELP}
`;

export const SUBMIT_HELP = `Usage: llm-bench submit FILE.json [--api-key KEY] [--leaderboard URL] [--wait] [--json]

Sends a payload saved with "llm-bench measure --out FILE" (one payload, a list, or the
--json output): a dry-run first (shows the normalised payload and the plausibility
verdict), then the submission with an Idempotency-Key derived from the payload, so
sending the same file again never stores a second run.

${EXIT_CODES_HELP}
`;
