/**
 * JSON answers assembled from texts that are already JSON (stored run documents), so
 * they are spliced in rather than parsed and serialised again. A big answer (a page of
 * documents) is kept as its pieces and written once into the buffer that is sent: no
 * string of the whole page is joined, flattened and then encoded again on the way out
 * (at 32 concurrent readers those 100 KB copies were over half of what a request allocated,
 * and lived long enough to be promoted, so the whole heap was marked several times a second).
 */
export class JsonText {
  constructor(readonly text: string) {}
}

/** A JSON array of ready JSON texts. */
export const jsonArray = (items: readonly string[]): JsonText => new JsonText(`[${items.join(',')}]`);

/**
 * JSON as a text or as its UTF-8 bytes: stored documents read from the read index's file come
 * as bytes, and are copied into an answer as they are (never decoded to a string and encoded back).
 */
export type JsonChunk = string | Buffer;

/** A piece of a chunk, as `String.prototype.slice` and `Buffer.prototype.subarray` take their bounds. */
export const sliceChunk = (chunk: JsonChunk, start: number, end?: number): JsonChunk =>
  typeof chunk === 'string' ? chunk.slice(start, end) : chunk.subarray(start, end);

/** The chunk as a text (for readers that parse it). */
export const chunkText = (chunk: JsonChunk): string => (typeof chunk === 'string' ? chunk : chunk.toString());

/** JSON as pieces of text or bytes, in order, written into one buffer (or joined into one text) only when asked. */
export class JsonPieces {
  readonly pieces: JsonChunk[] = [];

  push(...pieces: JsonChunk[]): this {
    for (const piece of pieces) this.pieces.push(piece);
    return this;
  }

  /** The pieces as one text (for readers that parse it). */
  text(): string {
    return this.pieces.map(chunkText).join('');
  }

  /** The pieces' UTF-8 bytes in one buffer: texts encoded straight into it, bytes copied. */
  bytes(): Buffer {
    let length = 0;
    for (const piece of this.pieces) length += typeof piece === 'string' ? Buffer.byteLength(piece) : piece.length;
    const out = Buffer.allocUnsafe(length);
    let at = 0;
    for (const piece of this.pieces) at += typeof piece === 'string' ? out.write(piece, at) : piece.copy(out, at);
    return out;
  }
}

/** The pieces of a JSON object whose top-level values are plain values, JsonText or JsonPieces (spliced as they are). */
function objectPieces(fields: Record<string, unknown>): JsonPieces {
  const out = new JsonPieces();
  let separator = '{';
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    out.push(`${separator}${JSON.stringify(key)}:`);
    if (value instanceof JsonPieces) out.push(...value.pieces);
    else out.push(value instanceof JsonText ? value.text : JSON.stringify(value));
    separator = ',';
  }
  return out.push(separator === '{' ? '{}' : '}');
}

/** A JSON object as UTF-8 bytes, its values as `objectPieces` takes them. */
export const jsonObject = (fields: Record<string, unknown>): Buffer => objectPieces(fields).bytes();
