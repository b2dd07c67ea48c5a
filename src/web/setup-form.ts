/**
 * The saved-setup form and the setups' place in the submit form. Field names in the setup
 * form are the API's own (`gpuName`, `gpuLayers`), so the page and the API share one
 * validation: `setupFromForm` only turns text into numbers and booleans by field name.
 */
import { formatNumber } from '../lib/labels.ts';
import { setupHardwareFields } from '../schemas/setup.schema.ts';
import { BOOLEAN_FLAGS, formNumber, NUMERIC_FLAGS } from '../runs/presentation/submission-form.ts';

const NUMBER_FIELDS = new Set<string>([
  'gpuCount',
  'vramGb',
  'unifiedMemoryGb',
  'npuTops',
  'ramGb',
  'powerWatts',
  'contextLength',
  'batchSize',
  ...NUMERIC_FLAGS,
]);
const BOOLEAN_FIELDS = new Set<string>(['isDefault', ...BOOLEAN_FLAGS]);

export const SETUP_ENGINE_FIELDS = ['engineName', 'engineVersion', 'backend', 'quantization', 'contextLength', 'batchSize'] as const;
/** The flags the forms show as inputs of their own; any other flag a setup holds is listed after them. */
export const FORM_FLAGS = [
  'gpuLayers',
  'tensorParallel',
  'concurrency',
  'kvCacheDtype',
  'flashAttn',
  'prefixCaching',
  'specDecoding',
  'specModel',
  'specNumTokens',
  'temperature',
] as const;

const hardwareFields = new Set<string>(setupHardwareFields);
const engineFields = new Set<string>(SETUP_ENGINE_FIELDS);

function convert(name: string, raw: string): unknown {
  if (NUMBER_FIELDS.has(name)) return formNumber(raw);
  if (BOOLEAN_FIELDS.has(name)) return raw === 'true' || raw === 'on' ? true : raw === 'false' ? false : raw;
  return raw;
}

export interface SetupFormOptions {
  /** `create`: empty inputs are left out. `edit`: an empty input clears its field (null). */
  mode: 'create' | 'edit';
  /** The configuration fields of the revision (from the setup schema). */
  configFields: readonly string[];
  /** For each hardware class, the hardware fields it takes. */
  classFields: ReadonlyMap<string, ReadonlySet<string>>;
}

/**
 * The API body for a posted setup form. Only known field names are read (the CSRF field
 * and anything else are ignored). Editing with a class chosen also clears the fields of
 * other classes the form no longer shows, so switching class in the form just works.
 */
export function setupFromForm(
  form: Record<string, unknown>,
  { mode, configFields, classFields }: SetupFormOptions,
): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const name of ['name', 'description', 'isDefault', ...configFields]) {
    const raw = Object.hasOwn(form, name) ? form[name] : undefined;
    if (typeof raw !== 'string') continue;
    const value = raw.trim();
    if (value === '') {
      // The name is never cleared: an empty one is reported as missing.
      if (name === 'name') body.name = '';
      else if (mode === 'edit') body[name] = null;
      continue;
    }
    body[name] = convert(name, value);
  }
  const hwClass = body.hwClass;
  const otherGpus = gpuRows(form);
  if (otherGpus.length > 0 && hwClass === 'DISCRETE_GPU') {
    // Several kinds of cards: the single-GPU fields are the first slot, the rows the others.
    const first = Object.fromEntries(
      Object.entries({ gpuName: body.gpuName, count: body.gpuCount, vramGb: body.vramGb }).filter(
        ([, value]) => value !== undefined && value !== null,
      ),
    );
    body.gpus = [first, ...otherGpus];
    for (const field of ['gpuName', 'gpuCount', 'vramGb']) {
      if (mode === 'edit') body[field] = null;
      else delete body[field];
    }
  } else if (mode === 'edit' && hwClass === 'DISCRETE_GPU') {
    // No rows: the single-GPU fields say it all, and any stored slots go.
    body.gpus = null;
  }
  if (mode === 'edit' && typeof hwClass === 'string' && classFields.has(hwClass)) {
    const accepted = classFields.get(hwClass)!;
    for (const field of setupHardwareFields) {
      if (!accepted.has(field) && !Object.hasOwn(body, field)) body[field] = null;
    }
  }
  return body;
}

/** The filled rows of other GPUs (`gpus.1.gpuName`, ...), in form order. */
function gpuRows(form: Record<string, unknown>): Record<string, unknown>[] {
  const rows = new Map<number, Record<string, unknown>>();
  for (const [name, raw] of Object.entries(form)) {
    const match = /^gpus\.(\d{1,2})\.(gpuName|count|vramGb)$/.exec(name);
    if (!match || typeof raw !== 'string' || raw.trim() === '') continue;
    const row = rows.get(Number(match[1])) ?? {};
    row[match[2]!] = match[2] === 'gpuName' ? raw.trim() : formNumber(raw.trim());
    rows.set(Number(match[1]), row);
  }
  return [...rows.entries()].sort(([a], [b]) => a - b).map(([, row]) => row);
}

const asText = (value: unknown) =>
  typeof value === 'boolean' ? String(value) : typeof value === 'number' ? String(value) : (value as string);

/** A stored setup as the setup form's values (flat names, text). */
export function setupFormValues(setup: Record<string, unknown>, configFields: readonly string[]): Record<string, string> {
  const values: Record<string, string> = { name: String(setup.name) };
  if (setup.description) values.description = String(setup.description);
  for (const field of configFields) {
    const value = setup[field];
    if (value === null || value === undefined || field === 'gpus') continue;
    values[field] = asText(value);
  }
  const gpus = setup.gpus as { gpuName: string; count: number; vramGb: number }[] | null | undefined;
  if (gpus?.length) Object.assign(values, gpuSlotValues(gpus, ''));
  return values;
}

/**
 * A setup as the submit form's values (`hardware.gpuName`, `engineFlags.gpuLayers`, ...).
 * One kind of card in several slots becomes the single-GPU fields; mixed cards fill those
 * with the first slot and the rows (`hardware.gpus.1.gpuName`, ...) with the others.
 */
export function submitFormValues(setup: Record<string, unknown>, configFields: readonly string[]): Record<string, string> {
  const values: Record<string, string> = {};
  for (const field of configFields) {
    const value = setup[field];
    if (value === null || value === undefined || field === 'gpus') continue;
    if (hardwareFields.has(field)) values[`hardware.${field}`] = asText(value);
    else if (engineFields.has(field)) values[field] = asText(value);
    else values[`engineFlags.${field}`] = asText(value);
  }
  const gpus = setup.gpus as { gpuName: string; count: number; vramGb: number }[] | null;
  if (gpus?.length && !values['hardware.gpuName']) {
    const [first] = gpus;
    if (gpus.every((slot) => slot.gpuName === first!.gpuName && slot.vramGb === first!.vramGb)) {
      values['hardware.gpuName'] = first!.gpuName;
      values['hardware.vramGb'] = String(first!.vramGb);
      values['hardware.gpuCount'] = String(gpus.reduce((sum, slot) => sum + slot.count, 0));
    } else {
      Object.assign(values, gpuSlotValues(gpus, 'hardware.'));
    }
  }
  return values;
}

/** GPU slots as form values: the first in the single-GPU fields (`<prefix>gpuName`), the others as rows (`<prefix>gpus.1.gpuName`). */
export function gpuSlotValues(
  gpus: readonly { gpuName: string; count: number; vramGb: number }[],
  prefix: '' | 'hardware.',
): Record<string, string> {
  const values: Record<string, string> = {};
  gpus.forEach((slot, index) => {
    if (index === 0) {
      Object.assign(values, {
        [`${prefix}gpuName`]: slot.gpuName,
        [`${prefix}gpuCount`]: String(slot.count),
        [`${prefix}vramGb`]: String(slot.vramGb),
      });
      return;
    }
    Object.assign(values, {
      [`${prefix}gpus.${index}.gpuName`]: slot.gpuName,
      [`${prefix}gpus.${index}.count`]: String(slot.count),
      [`${prefix}gpus.${index}.vramGb`]: String(slot.vramGb),
    });
  });
  return values;
}

/** Short lines that describe a setup in its card: hardware, engine and the flags set. */
export function setupSummary(setup: Record<string, unknown>, configFields: readonly string[]) {
  const s = setup as Record<string, any>;
  let hardware: string | null = null;
  if (s.hwClass === 'UNIFIED') hardware = `${s.chipVendor} ${s.chipFamily} ${s.chipVariant} · ${formatNumber(s.unifiedMemoryGb)} GB`;
  else if (s.hwClass === 'CPU_ONLY') hardware = `${s.cpu} · ${formatNumber(s.ramGb)} GB RAM`;
  else if (s.gpus?.length)
    hardware = s.gpus
      .map((slot: { count: number; gpuName: string; vramGb: number }) => `${slot.count}× ${slot.gpuName} (${formatNumber(slot.vramGb)} GB)`)
      .join(' + ');
  else if (s.gpuName)
    hardware = `${s.gpuCount > 1 ? `${s.gpuCount}× ` : ''}${s.gpuName}${s.vramGb ? ` · ${formatNumber(s.vramGb)} GB` : ''}`;
  const extras = [
    s.hwClass !== 'CPU_ONLY' && s.cpu ? s.cpu : null,
    s.hwClass !== 'CPU_ONLY' && s.ramGb ? `${formatNumber(s.ramGb)} GB RAM` : null,
    s.os,
    s.powerWatts ? `${formatNumber(s.powerWatts)} W` : null,
  ].filter(Boolean);
  const engine = [
    s.engineName && [s.engineName, s.engineVersion].filter(Boolean).join(' '),
    s.backend,
    s.quantization,
    s.contextLength && `context ${s.contextLength}`,
    s.batchSize && `batch ${s.batchSize}`,
  ].filter(Boolean);
  const flags = configFields
    .filter(
      (field) =>
        !hardwareFields.has(field) && !engineFields.has(field) && field !== 'commandSnippet' && s[field] !== null && s[field] !== undefined,
    )
    .map((field) => ({ name: field, value: typeof s[field] === 'boolean' ? (s[field] ? 'yes' : 'no') : String(s[field]) }));
  return {
    hardware,
    hardwareExtras: extras.join(' · '),
    engine: engine.join(' · '),
    flags,
    commandSnippet: s.commandSnippet as string | null,
  };
}

/** Flags a form's values hold beyond the ones it shows as inputs (e.g. from a setup or a run). */
export function otherFlagNames(values: Record<string, string>, prefix: '' | 'engineFlags.', configFields: readonly string[]): string[] {
  const shown = new Set<string>([...FORM_FLAGS, 'commandSnippet']);
  return configFields.filter(
    (field) => !hardwareFields.has(field) && !engineFields.has(field) && !shown.has(field) && (values[`${prefix}${field}`] ?? '') !== '',
  );
}
