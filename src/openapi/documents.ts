import type { RevisionProfile } from '../revisions.ts';
import { buildAgentContext, type AgentContext } from './agent-context.ts';
import { documentCache, type CachedDocument } from './cache.ts';
import { buildOpenApiDocument, type OpenApiDocument } from './document.ts';

/** The generated documents of one app (one revision), each built once per base URL. */
export interface ApiDocuments {
  openApi(baseUrl: string): CachedDocument<OpenApiDocument>;
  agentContext(baseUrl: string): CachedDocument<AgentContext>;
}

// Profiles are frozen singletons, and a document depends only on the profile and the base
// URL, so every app of a revision shares one set of caches.
const byProfile = new WeakMap<RevisionProfile, ApiDocuments>();

export function apiDocuments(profile: RevisionProfile): ApiDocuments {
  let documents = byProfile.get(profile);
  if (!documents) {
    documents = {
      openApi: documentCache((baseUrl) => buildOpenApiDocument(profile, baseUrl)),
      agentContext: documentCache((baseUrl) => buildAgentContext(profile, baseUrl)),
    };
    byProfile.set(profile, documents);
  }
  return documents;
}
