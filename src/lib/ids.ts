const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids are uuids; anything else cannot name a row (and would make Postgres raise 22P02). */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}
