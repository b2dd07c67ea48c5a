import { z } from 'zod';
import { NotFound } from '../lib/errors.ts';

/**
 * Ids in requests. A value that cannot name a row is answered like one that names no row:
 * 404 with the resource's not-found text (a path parameter that fails its schema is a 404,
 * see the validate middleware), so neither reveals anything.
 */

/** A resource id: a uuid, else the resource's not-found text. */
export function idSchema(notFoundMessage: string, description: string) {
  return z.uuid({ error: notFoundMessage }).meta({ description });
}

/** `:id` of a resource. */
export function idParam(notFoundMessage: string, description: string) {
  return z.object({ id: idSchema(notFoundMessage, description) });
}

/** An id given elsewhere than the path (a query parameter naming a row): the id, or a 404. */
export function existingId(value: unknown, notFoundMessage: string): string {
  const parsed = z.uuid().safeParse(value);
  if (!parsed.success) throw new NotFound(notFoundMessage);
  return parsed.data;
}

/** `:org/:model`: the hfId as two path segments. */
export const modelPathParams = z.object({
  org: z.string().meta({ description: 'Organisation part of the hfId' }),
  model: z.string().meta({ description: 'Model part of the hfId' }),
});
