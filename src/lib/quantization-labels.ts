/**
 * The quantization labels the spec lists as common, as engines write them. The API's
 * `quantization` filter is exact by contract; pages map what people type onto these.
 */
export const KNOWN_QUANTIZATIONS = [
  'Q4_K_M',
  'Q5_K_M',
  'Q6_K',
  'Q8_0',
  'IQ4_NL',
  'IQ4_XS',
  'IQ3_M',
  'AWQ',
  'GPTQ',
  'fp8',
  'fp16',
  'bf16',
  'int4',
  'int8',
  'INT4',
  'NVFP4',
  'bnb-nf4',
] as const;

/** A label without case and separators: `q4_k_m`, `Q4-K-M` and `q4km` are one. */
const looseForm = (label: string) => label.toLowerCase().replace(/[-_.\s]/g, '');

/**
 * The known label a typed quantization means (`q4_k_m` -> `Q4_K_M`); one typed exactly
 * as a known label (`INT4` and `int4` are both listed) or matching none stays as typed.
 */
export function canonicalQuantization(typed: string): string {
  const text = typed.trim();
  if ((KNOWN_QUANTIZATIONS as readonly string[]).includes(text)) return text;
  return KNOWN_QUANTIZATIONS.find((label) => looseForm(label) === looseForm(text)) ?? text;
}
