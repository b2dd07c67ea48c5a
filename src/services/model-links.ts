/**
 * The model catalogue's ids and tree links in memory, for reads while the read index is ready:
 * a filter's `hfId` resolves to a model or its tree with no round trip (issue 37: on the
 * filter mix, a first-seen model name cost its request a turn of the event loop behind 32
 * others). The rules are MODEL_TREE_SQL's (src/services/model-tree.ts), and the lower-cased
 * names come from Postgres, so they cannot drift from the SQL path
 * (`test/api/model-links.test.ts` compares both on every model). Only names written in ASCII
 * are answered here: for others JavaScript's and Postgres's lower-casing may differ, and the
 * caller asks Postgres.
 */
import type { Db } from '../db/knex.ts';

interface LinkRow {
  id: string;
  /** lower(hf_id) */
  hf: string;
  base_model_id: string | null;
  /** lower(base_hf_id) */
  base_hf: string | null;
}

const ASCII = /^[\x00-\x7f]*$/;

export class ModelLinks {
  private readonly idByHf = new Map<string, string>();
  private readonly hfById = new Map<string, string>();
  /** Children by their base's row id, and by the base id the hub named (lower-cased). */
  private readonly childrenById = new Map<string, string[]>();
  private readonly childrenByHf = new Map<string, string[]>();

  static async load(db: Db): Promise<ModelLinks> {
    const rows = await db('models').select<LinkRow[]>(
      'id',
      db.raw('lower(hf_id) as hf'),
      'base_model_id',
      db.raw('lower(base_hf_id) as base_hf'),
    );
    return new ModelLinks(rows);
  }

  constructor(rows: readonly LinkRow[]) {
    const add = (map: Map<string, string[]>, key: string, id: string) => {
      const list = map.get(key);
      if (list) list.push(id);
      else map.set(key, [id]);
    };
    for (const row of rows) {
      this.idByHf.set(row.hf, row.id);
      this.hfById.set(row.id, row.hf);
      if (row.base_model_id) add(this.childrenById, row.base_model_id, row.id);
      if (row.base_hf !== null) add(this.childrenByHf, row.base_hf, row.id);
    }
  }

  /** Whether this copy can answer for the name (else: ask Postgres). */
  answers(hfId: string): boolean {
    return ASCII.test(hfId);
  }

  /** The catalogued model of this name (any case), or null. */
  idOf(hfId: string): string | null {
    return this.idByHf.get(hfId.toLowerCase()) ?? null;
  }

  /**
   * The model and every model derived from it, as MODEL_TREE_SQL finds them: the model and the
   * models naming it as their base, then, repeatedly, the children of any model found, linked
   * by row id or by name.
   */
  tree(hfId: string): string[] {
    const name = hfId.toLowerCase();
    const found = new Set<string>();
    const queue: string[] = [];
    const reach = (id: string | undefined) => {
      if (id === undefined || found.has(id)) return;
      found.add(id);
      queue.push(id);
    };
    reach(this.idByHf.get(name));
    for (const id of this.childrenByHf.get(name) ?? []) reach(id);
    while (queue.length > 0) {
      const id = queue.pop()!;
      for (const child of this.childrenById.get(id) ?? []) reach(child);
      for (const child of this.childrenByHf.get(this.hfById.get(id)!) ?? []) reach(child);
    }
    return [...found];
  }
}
