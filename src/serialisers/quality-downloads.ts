import type { SignedGrant, UrlSigner } from '../lib/signed-urls.ts';
import { absoluteUrl } from './origin.ts';

/**
 * Signed download URLs in quality answers (DECISIONS.md "Real clients"): a shard task's
 * dataset as JSON Lines, a storage object's bytes. The HTTP layer signs (it holds the
 * signer and the answer's origin); services hand out slugs and keys.
 */

export interface UrlMaker {
  /** The signed absolute URL of `path` granting `grant`, and when it stops working. */
  signed(path: string, grant: SignedGrant): { url: string; expiresAt: Date };
}

export function urlMaker(signer: UrlSigner, origin: string, now: Date): UrlMaker {
  return {
    signed(path, grant) {
      const { expires, signature, expiresAt } = signer.sign(grant, now);
      return { url: absoluteUrl(origin, `${path}?expires=${expires}&signature=${signature}`), expiresAt };
    },
  };
}

/** What a dataset's signed download URL grants. */
export const datasetGrant = (slug: string): SignedGrant => ({ action: 'GET', resource: `dataset:${slug}` });
/** What a storage object's signed URLs grant: its download, or the PUT of its bytes. */
export const storageGrant = (action: 'GET' | 'PUT', key: string): SignedGrant => ({ action, resource: `storage:${key}` });

/** The path a dataset's items are served at, under the quality root. */
export const datasetItemsPath = (root: string, slug: string) => `${root}/datasets/${encodeURIComponent(slug)}/items`;
/** The path a storage object's bytes are put and served at, under the quality root. */
export const storageObjectPath = (root: string, key: string) => `${root}/storage/objects/${encodeURIComponent(key)}`;

interface TaskLike {
  key?: unknown;
  dataset?: unknown;
}

/**
 * The document with every shard task's dataset carrying `downloadUrl` (JSON Lines of its
 * items, `format: "jsonl"`), and the URLs by task key.
 */
export function withDatasetDownloadUrls<Doc extends { tasks: readonly TaskLike[] }>(
  doc: Doc,
  root: string,
  urls: UrlMaker,
): { suiteDoc: Doc; downloadUrls: Record<string, string> } {
  const downloadUrls: Record<string, string> = {};
  const tasks = doc.tasks.map((task) => {
    const dataset = task.dataset as { source?: unknown; datasetSlug?: unknown } | undefined;
    if (dataset?.source !== 'shard' || typeof dataset.datasetSlug !== 'string') return task;
    const { url } = urls.signed(datasetItemsPath(root, dataset.datasetSlug), datasetGrant(dataset.datasetSlug));
    if (typeof task.key === 'string') downloadUrls[task.key] = url;
    return { ...task, dataset: { ...dataset, downloadUrl: url, format: 'jsonl' } };
  });
  return { suiteDoc: { ...doc, tasks }, downloadUrls };
}
