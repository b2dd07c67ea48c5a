import { parseCommandSnippet } from '../../lib/command-snippet.ts';

/**
 * Turns the flat fields of the HTML submit form (`hardware.gpuName`, `engineFlags.gpuLayers`,
 * ...) into the JSON body the API takes, so the page and the API share one validation.
 * Empty inputs are left out; numbers and booleans are converted by field name; a value
 * that is not a number stays a string so the schema reports it on its field.
 */
/** Engine flags that take a number or a boolean (shared with the saved-setup form). */
export const NUMERIC_FLAGS = [
  'tensorParallel',
  'pipelineParallel',
  'gpuLayers',
  'cpuLayers',
  'cpuOffloadGb',
  'gpuMemUtil',
  'kvCacheSizeMb',
  'prefillChunkSize',
  'maxRunningSeqs',
  'schedulerDelayFactor',
  'ropeScale',
  'yarnExtFactor',
  'concurrency',
  'numParallel',
  'specNumTokens',
  'specNgramSize',
  'specDraftTp',
  'specDraftWindowSize',
  'mtpDraftLayers',
  'temperature',
  'topP',
  'topK',
  'minP',
  'repeatPenalty',
  'mirostat',
] as const;
export const BOOLEAN_FLAGS = ['prefixCaching', 'flashAttn', 'chunkedPrefill', 'contBatching', 'specDecoding', 'mtpEnabled'] as const;

const NUMBER_FIELDS = new Set([
  'tokSOut',
  'tokSPrefill',
  'tokSTotal',
  'ttftMs',
  'peakVramGb',
  'promptTokens',
  'outputTokens',
  'contextLength',
  'batchSize',
  'prefillTokens',
  'hardware.gpuCount',
  'hardware.vramGb',
  'hardware.ramGb',
  'hardware.powerWatts',
  'hardware.unifiedMemoryGb',
  'hardware.npuTops',
  ...NUMERIC_FLAGS.map((flag) => `engineFlags.${flag}`),
]);
const BOOLEAN_FIELDS = new Set(BOOLEAN_FLAGS.map((flag) => `engineFlags.${flag}`));
const NUMBER_LIST_FIELDS = new Set(['gpuPowerWatts']);
// Letters and digits only, at most one level deep: no `__proto__` tricks through field names.
const FIELD_NAME = /^[A-Za-z][A-Za-z0-9]*(\.[A-Za-z][A-Za-z0-9]*)?$/;

/** A number as a form gives it, or the text unchanged so the schema names the field. */
export function formNumber(raw: string): unknown {
  return /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw;
}

function convert(name: string, raw: string): unknown {
  if (NUMBER_FIELDS.has(name)) return formNumber(raw);
  if (BOOLEAN_FIELDS.has(name)) return raw === 'true' ? true : raw === 'false' ? false : raw;
  if (NUMBER_LIST_FIELDS.has(name)) {
    return raw
      .split(/[\s,]+/)
      .filter(Boolean)
      .map((part) => (/^-?\d+(\.\d+)?$/.test(part) ? Number(part) : part));
  }
  return raw;
}

/** Repeated rows of the form: the other GPUs of a mixed machine, and purchase records. */
const ROW_FIELD = /^(hardware\.gpus|hardwareCost)\.(\d{1,2})\.([A-Za-z]+)$/;
const ROW_NUMBER_FIELDS = new Set(['count', 'vramGb', 'yearPurchased', 'price']);
/** How many rows each list offers without JavaScript (GPU row 0 is the single-GPU fields). */
export const FORM_ROWS = { gpus: 3, hardwareCost: 2 } as const;

/** The filled rows of one list, in form order: `{ index: { field: value } }` -> `[{ field: value }]`. */
function filledRows(form: Record<string, unknown>, list: string): Record<string, unknown>[] {
  const rows = new Map<number, Record<string, unknown>>();
  for (const [name, value] of Object.entries(form)) {
    const match = ROW_FIELD.exec(name);
    if (!match || match[1] !== list || typeof value !== 'string' || value.trim() === '') continue;
    const index = Number(match[2]);
    const row = rows.get(index) ?? {};
    row[match[3]!] = ROW_NUMBER_FIELDS.has(match[3]!) ? formNumber(value.trim()) : value.trim();
    rows.set(index, row);
  }
  return [...rows.entries()].sort(([a], [b]) => a - b).map(([, row]) => row);
}

/**
 * The form's values with each list's filled rows numbered from the first row on, as the
 * API body numbers them, so an error about `hardwareCost.0.price` lands on the row shown first.
 */
export function compactRows(values: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(values)) if (!ROW_FIELD.test(name)) out[name] = value;
  for (const list of ['hardware.gpus', 'hardwareCost']) {
    const first = list === 'hardware.gpus' ? 1 : 0;
    filledRows(values, list).forEach((row, position) => {
      for (const [field, value] of Object.entries(row)) out[`${list}.${position + first}.${field}`] = String(value);
    });
  }
  return out;
}

export function submissionFromForm(form: Record<string, unknown>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(form)) {
    if (!FIELD_NAME.test(name) || typeof value !== 'string' || value.trim() === '') continue;
    const [head, tail] = name.split('.', 2) as [string, string | undefined];
    const converted = convert(name, value.trim());
    if (tail === undefined) {
      body[head] = converted;
      continue;
    }
    if (!Object.hasOwn(body, head)) body[head] = {};
    const nested = body[head];
    if (nested && typeof nested === 'object') (nested as Record<string, unknown>)[tail] = converted;
  }
  // Flags without a launch command are only sent when some flag was filled in.
  if (body.engineFlags && Object.keys(body.engineFlags).length === 0) delete body.engineFlags;
  const hardware = body.hardware as Record<string, unknown> | undefined;
  const otherGpus = filledRows(form, 'hardware.gpus');
  if (hardware?.hwClass === 'DISCRETE_GPU' && otherGpus.length > 0) {
    // Several kinds of cards: the single-GPU fields are the first slot, the rows the others.
    const { gpuName, gpuCount, vramGb, ...rest } = hardware;
    const first = Object.fromEntries(Object.entries({ gpuName, count: gpuCount, vramGb }).filter(([, value]) => value !== undefined));
    body.hardware = { ...rest, gpus: [first, ...otherGpus] };
  }
  const costs = filledRows(form, 'hardwareCost');
  if (costs.length > 0) body.hardwareCost = costs;
  return body;
}

/** Form fields the launch command fills when left empty: the API requires both, so only the form takes them from it. */
const FORM_FIELDS_FROM_COMMAND = ['hfId', 'engineName'] as const;

/**
 * The form's values with an empty model id or engine taken from the launch command
 * (`vllm serve <id>`, the program's engine), and which were filled, so the page can say so.
 * The other fields the command states are filled by the submission's normalisation, as for the API.
 */
export function withCommandFields(values: Record<string, string>): { values: Record<string, string>; filled: string[] } {
  const snippet = values['engineFlags.commandSnippet'] ?? '';
  if (snippet.trim() === '' || FORM_FIELDS_FROM_COMMAND.every((field) => (values[field] ?? '').trim() !== ''))
    return { values, filled: [] };
  const { fields } = parseCommandSnippet(snippet, values.engineName ?? '');
  const filled = FORM_FIELDS_FROM_COMMAND.filter((field) => (values[field] ?? '').trim() === '' && fields[field] !== undefined);
  return { values: { ...values, ...Object.fromEntries(filled.map((field) => [field, fields[field]!])) }, filled };
}

/**
 * An owner's correction from the same form: what it holds, and `null` (drop the stored
 * value) for each field it shows empty. `hardware` and `engineFlags` are sent whole, as
 * the form has them; fields the form does not show are left as stored.
 */
export function correctionFromForm(form: Record<string, unknown>): Record<string, unknown> {
  const body = submissionFromForm(form);
  for (const name of Object.keys(form)) {
    const [head] = name.split('.', 1) as [string];
    if ((FIELD_NAME.test(name) || ROW_FIELD.test(name)) && !Object.hasOwn(body, head)) body[head] = null;
  }
  return body;
}

/** A stored submission as the form's values (`hardware.gpuName`, `engineFlags.gpuLayers`, ...): submissionFromForm's inverse for what the form shows. */
export function formValuesOf(submission: Record<string, unknown>): Record<string, string> {
  const values: Record<string, string> = {};
  const text = (value: unknown) => (value === null || value === undefined || typeof value === 'object' ? undefined : String(value));
  const rows = (list: string, items: unknown[], first: number) =>
    items.forEach((item, index) => {
      for (const [field, inner] of Object.entries(item as object))
        if (text(inner) !== undefined) values[`${list}.${index + first}.${field}`] = text(inner)!;
    });
  for (const [name, value] of Object.entries(submission)) {
    if (NUMBER_LIST_FIELDS.has(name) && Array.isArray(value)) values[name] = value.join(', ');
    else if (name === 'hardwareCost' && Array.isArray(value)) rows(name, value, 0);
    else if (value && typeof value === 'object' && !Array.isArray(value)) {
      for (const [field, inner] of Object.entries(value)) if (text(inner) !== undefined) values[`${name}.${field}`] = text(inner)!;
      const gpus = (value as { gpus?: { gpuName?: unknown; count?: unknown; vramGb?: unknown }[] }).gpus;
      if (name === 'hardware' && Array.isArray(gpus) && gpus.length > 0) {
        // The first slot in the single-GPU fields, the others as rows.
        const [first, ...others] = gpus;
        for (const [field, inner] of Object.entries({ gpuName: first!.gpuName, gpuCount: first!.count, vramGb: first!.vramGb })) {
          if (text(inner) !== undefined) values[`hardware.${field}`] = text(inner)!;
        }
        rows('hardware.gpus', others, 1);
      }
    } else if (text(value) !== undefined) values[name] = text(value)!;
  }
  return values;
}
