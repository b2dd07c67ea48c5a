/**
 * Model search in memory: the catalogue as Postgres lowered and squashed it, searched with the
 * same rules as the SQL path (`everyTokenSql` over the id, name and family; exact id first,
 * then prefix matches, then the rest, each by run count and id). The texts come from
 * Postgres (`MODEL_SEARCH_COLUMNS`), so lower-casing and separator rules cannot drift from
 * the SQL path; only the query's words are prepared here, as that path prepares them too.
 */
import { searchTokens, squashSeparators } from './search-tokens.ts';

/** One catalogue row as the search keeps it. */
export interface ModelSearchRow {
  hfId: string;
  displayName: string;
  family: string | null;
  params: number | null;
  benchmarkCount: number;
  /** lower(hf_id) */
  idLower: string;
  /** lower(display_name) */
  nameLower: string;
  /** The searched text: lower(hf_id) || ' ' || lower(display_name) || ' ' || lower(family) */
  text: string;
  /** `text` with separators removed (`squashSeparatorsSql`). */
  squashed: string;
}

export interface ModelSearchHit {
  hfId: string;
  displayName: string;
  family: string | null;
  params: number | null;
  benchmarkCount: number;
}

/**
 * The catalogue in the order every group of an answer keeps: by run count, then id, as
 * Postgres ordered it (its collation decides the ids' order, as on the SQL path).
 */
export class ModelSearchTable {
  private readonly rows: readonly ModelSearchRow[];
  /** Rows by lower-case id (ids differing only in case share one), in table order. */
  private readonly byIdLower = new Map<string, ModelSearchRow[]>();

  /** `rows` in `MODEL_SEARCH_ORDER`. */
  constructor(rows: readonly ModelSearchRow[]) {
    this.rows = rows;
    for (const row of this.rows) {
      const same = this.byIdLower.get(row.idLower);
      if (same) same.push(row);
      else this.byIdLower.set(row.idLower, [row]);
    }
  }

  get size(): number {
    return this.rows.length;
  }

  /** At most `limit` models with every word of `q` (see the module comment for the order). */
  search(q: string, limit: number): ModelSearchHit[] {
    const lowered = q.toLowerCase();
    const words = searchTokens(lowered).map((token) => {
      const bare = squashSeparators(token);
      return bare ? { in: 'squashed' as const, part: bare } : { in: 'text' as const, part: token };
    });
    // An exact id holds every word of the query, so it always matches.
    const exact = this.byIdLower.get(lowered) ?? [];
    const prefixed: ModelSearchRow[] = [];
    const rest: ModelSearchRow[] = [];
    for (const row of this.rows) {
      // Rows come in run-count order: once the exact and prefix matches fill the answer, no later row enters it.
      if (exact.length + prefixed.length >= limit) break;
      if (row.idLower === lowered || !words.every((word) => row[word.in].includes(word.part))) continue;
      if (row.idLower.startsWith(lowered) || row.nameLower.startsWith(lowered)) prefixed.push(row);
      else if (exact.length + prefixed.length + rest.length < limit) rest.push(row);
    }
    return [...exact, ...prefixed, ...rest]
      .slice(0, limit)
      .map(({ hfId, displayName, family, params, benchmarkCount }) => ({ hfId, displayName, family, params, benchmarkCount }));
  }
}
