/**
 * What the submit and setup forms say about a field: its label, and each validation message
 * of the API (`hardware.gpuName: Required unless gpus is given`) as a plain sentence about
 * the field a person sees ("Fill in the GPU's name."). One place for both, so the inputs'
 * labels, the inline errors and the live check's list always agree.
 */

/** The submit form's labels, by form field name (the API's dotted path). */
export const SUBMIT_FIELD_LABELS: Record<string, string> = {
  hfId: 'Model id on the hub',
  modelRevision: 'Model revision',
  quantization: 'Quantization',
  engineName: 'Engine',
  engineVersion: 'Engine version',
  backend: 'Backend',
  engineRepository: 'Engine repository URL',
  engineCommit: 'Engine commit',
  engineBuild: 'Engine build',
  'hardware.hwClass': 'Hardware class',
  'hardware.gpuName': 'GPU',
  'hardware.gpuCount': 'Number of GPUs',
  'hardware.vramGb': 'VRAM per GPU (GB)',
  'hardware.gpus': 'Other GPUs',
  'hardware.cpu': 'CPU',
  'hardware.ramGb': 'RAM (GB)',
  'hardware.os': 'Operating system',
  'hardware.powerWatts': 'Power in watts, TDP or measured',
  'hardware.chipVendor': 'Chip vendor',
  'hardware.chipFamily': 'Chip family',
  'hardware.chipVariant': 'Chip variant',
  'hardware.unifiedMemoryGb': 'Unified memory (GB)',
  'hardware.npuTops': 'NPU TOPS',
  tokSOut: 'Output tokens per second',
  tokSPrefill: 'Prefill tokens per second',
  tokSTotal: 'Total tokens per second',
  ttftMs: 'Time to first token (ms)',
  peakVramGb: 'Peak VRAM (GB)',
  promptTokens: 'Prompt tokens',
  outputTokens: 'Output tokens',
  contextLength: 'Context length',
  batchSize: 'Batch size',
  prefillTokens: 'Tokens already in the KV cache',
  gpuPowerWatts: 'Measured watts per GPU, comma-separated',
  hardwareCost: 'What the hardware cost',
  notes: 'Notes',
  'engineFlags.commandSnippet': 'Launch command',
  'engineFlags.gpuLayers': 'GPU layers (-ngl)',
  'engineFlags.tensorParallel': 'Tensor parallel (-tp)',
  'engineFlags.concurrency': 'Concurrent requests',
  'engineFlags.kvCacheDtype': 'KV cache dtype',
  'engineFlags.flashAttn': 'Flash attention',
  'engineFlags.prefixCaching': 'Prefix caching',
  'engineFlags.specDecoding': 'Speculative decoding',
  'engineFlags.specModel': 'Draft model',
  'engineFlags.specNumTokens': 'Speculative tokens',
  'engineFlags.temperature': 'Temperature',
};

/** Labels of the fields inside a repeated row (`hardware.gpus.1.vramGb`, `hardwareCost.0.price`). */
const GPU_ROW_LABELS = { gpuName: 'GPU', count: 'Number of cards', vramGb: 'VRAM per card (GB)' };
const ROW_FIELD_LABELS: Record<string, Record<string, string>> = {
  'hardware.gpus': GPU_ROW_LABELS,
  gpus: GPU_ROW_LABELS,
  hardwareCost: { component: 'Part', condition: 'Condition', yearPurchased: 'Year bought', price: 'Price', currency: 'Currency' },
};
const ROW_NAMES: Record<string, string> = { 'hardware.gpus': 'Other GPUs, row', gpus: 'Other GPUs, row', hardwareCost: 'Purchase' };

/**
 * The saved-setup form's labels: the same fields under their flat setup names (`gpuName`,
 * `gpuLayers`), plus the setup's own.
 */
export const SETUP_FIELD_LABELS: Record<string, string> = {
  name: 'Name',
  description: 'Description',
  hwClass: 'Hardware class',
  ...Object.fromEntries(
    Object.entries(SUBMIT_FIELD_LABELS)
      .filter(
        ([name]) =>
          name.startsWith('hardware.') ||
          name.startsWith('engineFlags.') ||
          ['engineName', 'engineVersion', 'backend', 'quantization', 'contextLength', 'batchSize'].includes(name),
      )
      .map(([name, label]) => [name.replace(/^(hardware|engineFlags)\./, ''), label]),
  ),
  commandSnippet: 'Launch command',
};

/** What a person is asked to do when a field is missing, where "Fill in the <label>." reads badly. */
const MISSING: Record<string, string> = {
  hfId: 'Type the model’s id on Hugging Face, like meta-llama/Llama-3.1-8B-Instruct.',
  quantization: 'Say which quantization you ran, like Q4_K_M or fp16.',
  engineName: 'Choose the engine you ran.',
  'hardware.gpuName': 'Type the GPU’s name, like NVIDIA GeForce RTX 4090.',
  'hardware.vramGb': 'Type how much memory one GPU has, in GB.',
  'hardware.cpu': 'Type the CPU’s name, like AMD Ryzen 9 7950X.',
  'hardware.ramGb': 'Type how much RAM the machine has, in GB.',
  'hardware.unifiedMemoryGb': 'Type how much unified memory the chip has, in GB.',
  tokSOut: 'Type the output speed you measured, in tokens per second.',
};

export interface FieldProblem {
  /** The form field's name (the API path of the issue). */
  field: string;
  label: string;
  messages: string[];
}

/** A field's label: its own, a row field's (`Other GPUs, row 2: VRAM per card (GB)`), or the path itself as a last resort. */
export function fieldLabel(field: string, labels: Record<string, string> = SUBMIT_FIELD_LABELS): string {
  if (labels[field]) return labels[field];
  const row = /^(.+)\.(\d+)\.([A-Za-z]+)$/.exec(field);
  if (row && ROW_FIELD_LABELS[row[1]!]) {
    const [, list, index, inner] = row as unknown as [string, string, string, string];
    // GPU row 0 is the single-GPU fields above the rows; the rows people see start at 1.
    const number = list === 'hardwareCost' ? Number(index) + 1 : Number(index);
    return `${ROW_NAMES[list]} ${number}: ${ROW_FIELD_LABELS[list]![inner] ?? inner}`;
  }
  return labels[field.replace(/^hardware\./, '')] ?? field;
}

/** "Engine version" -> "engine version"; "GPU", "CPU", "VRAM ..." keep their capitals. */
const lower = (label: string) => (/^[A-Z]{2}/.test(label) ? label : label.charAt(0).toLowerCase() + label.slice(1));

/** One API message about `field` as a plain sentence. */
export function plainMessage(field: string, message: string, labels: Record<string, string> = SUBMIT_FIELD_LABELS): string {
  const label = fieldLabel(field, labels);
  let match: RegExpExecArray | null;
  if (message === 'Required' || /^Required unless /.test(message) || /must not be empty$/.test(message)) {
    return MISSING[field] ?? MISSING[`hardware.${field}`] ?? `Fill in the ${lower(label.replace(/^.*: /, ''))}.`;
  }
  if (message === 'Must be a number' || message === 'Must be a finite number') return 'Type a number, like 42.5.';
  if (message === 'Must be an integer') return 'Type a whole number, without decimals.';
  if (message === 'Must be positive') return 'Must be more than 0.';
  if (message === 'Must be true or false') return 'Choose yes or no.';
  if (message === 'Must be a string') return 'Type it as text.';
  if ((match = /^Must be at least (\S+)$/.exec(message))) return `Must be ${match[1]} or more.`;
  if ((match = /^Must be at most (\d+) characters$/.exec(message))) return `Keep it to ${match[1]} characters or fewer.`;
  if ((match = /^Must be at most (\S+)$/.exec(message))) return `Must be ${match[1]} or less.`;
  if ((match = /^Must be between (\S+) and (\S+)$/.exec(message))) return `Must be between ${match[1]} and ${match[2]}.`;
  if (/^Must be a model id of the form/.test(message)) return 'Write it as organisation/model, like meta-llama/Llama-3.1-8B-Instruct.';
  if (/^Must be one of/.test(message)) return 'Choose one from the list.';
  if (/^Must be an http\(s\) URL/.test(message)) return 'Write the whole address, starting with https://.';
  if ((match = /^Must be (\d+)-(\d+) hex characters$/.exec(message)))
    return `Write the commit hash: ${match[1]} to ${match[2]} characters, 0-9 and a-f.`;
  if (/^Must be a canonical hardware name/.test(message)) return 'Pick the part’s name from the suggestions (the hardware catalogue).';
  if (/^Give either gpuName and vramGb, or gpus/.test(message))
    return 'Describe the first GPU in the fields above and only other kinds of cards in the rows.';
  if (message === 'Give one entry per GPU') return 'Give one figure per GPU, separated by commas.';
  if (message === 'Must be an array of numbers') return 'Type numbers separated by commas, like 350, 340.';
  if (message === 'Must not be in the future') return 'That year has not happened yet.';
  if (message === 'Must be an upper-case ISO 4217 code from the accepted list') return 'Choose a currency from the list.';
  if (message === 'Unknown field') return 'This field is not accepted here.';
  if (/^Not accepted in API revision/.test(message)) return 'This deployment does not take this field.';
  if (/^Does not apply to hwClass/.test(message)) return 'Does not apply to this hardware class: clear it or change the class.';
  if (message === 'Required when engineFlags is given') return 'Paste the launch command: engine settings need it.';
  return message.replace(/\b([a-z]+[A-Z][A-Za-z]*)\b/g, (name) => (labels[name] ? `“${labels[name]}”` : name));
}

/**
 * The API's field errors as the form shows them: plain sentences keyed by form field name,
 * and the same as a list in form order for the summary. Errors of the API's first GPU slot
 * (`hardware.gpus.0.*`) belong to the single-GPU fields the form shows for it.
 */
export function formProblems(
  fieldErrors: Record<string, string[]>,
  labels: Record<string, string> = SUBMIT_FIELD_LABELS,
): { fieldErrors: Record<string, string[]>; problems: FieldProblem[] } {
  const plain = new Map<string, string[]>();
  for (const [path, messages] of Object.entries(fieldErrors)) {
    const field = path
      .replace(/^(hardware\.)?gpus\.0\.(gpuName|vramGb)$/, '$1$2')
      .replace(/^(hardware\.)?gpus\.0\.count$/, '$1gpuCount')
      // One of a list of numbers (gpuPowerWatts.1) is about the list's field.
      .replace(/^([A-Za-z]+)\.\d+$/, (whole, list: string) => (labels[list] ? list : whole));
    const sentences = messages.map((message) => plainMessage(field, message, labels));
    plain.set(field, [...new Set([...(plain.get(field) ?? []), ...sentences])]);
  }
  const order = Object.keys(labels);
  const rank = (field: string) => {
    const at = order.findIndex((name) => field === name || field.startsWith(`${name}.`));
    return at === -1 ? order.length : at;
  };
  const problems = [...plain.entries()]
    .sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b))
    .map(([field, messages]) => ({ field, label: fieldLabel(field, labels), messages }));
  return { fieldErrors: Object.fromEntries(plain), problems };
}

/** Form-wide messages with field names spelled as their labels. */
export function plainFormErrors(formErrors: string[], labels: Record<string, string> = SUBMIT_FIELD_LABELS): string[] {
  return formErrors.map((message) => message.replace(/\b([a-z]+[A-Z][A-Za-z]*)\b/g, (name) => (labels[name] ? `“${labels[name]}”` : name)));
}
