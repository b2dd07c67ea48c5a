import type { Db } from '../../db/knex.ts';
import { ModelLinks } from '../../services/model-links.ts';
import { MODEL_TREE_SQL, type ModelScope } from '../../services/model-tree.ts';
import { hardwareProfileFilter, type FacetContext, type FacetResolvers } from '../facets.ts';
import { applyProfileConditions, ProfileTable } from '../profile-conditions.ts';
import type { RunReadIndex } from '../read-index/read-index.ts';
import type { RevisionProfile } from '../../revisions.ts';
import type { SpeedTestReads } from './speed-test-reads.ts';

interface ResolverDeps {
  db: Db;
  profile: RevisionProfile;
  now: Date;
  reads: Pick<SpeedTestReads, 'modelIdOf'>;
  /** Where resolutions are remembered while the index is ready (noReadIndex: computed afresh). */
  readIndex: RunReadIndex;
}

/**
 * The context a query's facets are turned into terms in, the same for both read paths:
 * names resolved through the catalogue once per query (hardware profiles, model trees,
 * users), remembered by the read index under keys that name the registry (`registryName`).
 */
export function facetContext(
  { db, profile, now, reads, readIndex }: ResolverDeps,
  registry: { name: string; facets: object },
  query: Readonly<Record<string, unknown>>,
  modelScope: ModelScope = 'tree',
): FacetContext {
  let hardware: Promise<string[]> | undefined;
  const scopes = new Map<string, Promise<string[]>>();
  /** The catalogue's model links while the index is ready (loaded once per catalogue change), when they can answer for the name; else null: ask Postgres. */
  const linksFor = async (hfId: string): Promise<ModelLinks | null> => {
    if (!readIndex.isReady()) return null;
    const links = await readIndex.resolved('model-links', () => ModelLinks.load(db));
    return links.answers(hfId) ? links : null;
  };
  const modelIdOf = async (hfId: string) => {
    const links = await linksFor(hfId);
    return links ? links.idOf(hfId) : reads.modelIdOf(hfId);
  };
  const resolve: FacetResolvers = {
    modelId: modelIdOf,
    modelScope(hfId) {
      let ids = scopes.get(hfId);
      if (!ids) {
        ids =
          modelScope === 'model'
            ? modelIdOf(hfId).then((id) => (id ? [id] : []))
            : readIndex.resolved(
                `model-tree:${hfId}`,
                async () =>
                  (await linksFor(hfId))?.tree(hfId) ??
                  (await db.raw(MODEL_TREE_SQL, [hfId, hfId])).rows.map((row: { id: string }) => row.id),
              );
        scopes.set(hfId, ids);
      }
      return ids;
    },
    hardwareProfiles() {
      const { key, conditions } = hardwareProfileFilter(registry.facets, query);
      // While the index is ready, from the copy of the profiles (loaded once per catalogue change).
      hardware ??= readIndex.resolved(`${registry.name}-hardware:${key}`, async () =>
        readIndex.isReady()
          ? (await readIndex.resolved('hardware-profiles', () => ProfileTable.load(db))).matching(conditions)
          : db('hardware_profiles')
              .modify((q) => applyProfileConditions(q, conditions))
              .pluck('id'),
      );
      return hardware;
    },
    userId: (username) =>
      readIndex.resolved(`username:${username.toLowerCase()}`, async () => {
        const user = await db('users').whereRaw('lower(username) = lower(?)', [username]).first('id');
        return (user?.id as string | undefined) ?? null;
      }),
  };
  return { profile, now, query, resolve };
}
