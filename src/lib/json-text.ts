/**
 * JSON answers assembled from texts that are already JSON (stored run documents), so
 * they are spliced in rather than parsed and serialised again.
 */
export class JsonText {
  constructor(readonly text: string) {}
}

/** A JSON array of ready JSON texts. */
export const jsonArray = (items: readonly string[]): JsonText => new JsonText(`[${items.join(',')}]`);

/** A JSON object whose top-level values are plain values or JsonText. */
export function jsonObject(fields: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    parts.push(`${JSON.stringify(key)}:${value instanceof JsonText ? value.text : JSON.stringify(value)}`);
  }
  return `{${parts.join(',')}}`;
}
