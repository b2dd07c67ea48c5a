import type { Request, Response } from 'express';
import type { AppContext } from '../../app-context.ts';
import { agentGuide } from '../../openapi/agent-guide.ts';
import { baseUrlOf, keepPrivateWithoutPublicUrl } from '../../openapi/cache.ts';
import { docsPage, type DocsPage } from '../../openapi/html.ts';
import { render } from '../../web/views.ts';

/** /docs/api (the OpenAPI document as a page) and /docs/agents (a short guide). */
export function docsPagesController({ profile, config, documents }: AppContext) {
  // One page model per generated document (the document is cached per base URL).
  const pages = new WeakMap<object, DocsPage>();
  return {
    index(_req: Request, res: Response) {
      res.redirect(302, '/docs/api');
    },
    api(req: Request, res: Response) {
      const { document } = documents.openApi(baseUrlOf(req, config));
      let page = pages.get(document);
      if (!page) pages.set(document, (page = docsPage(document)));
      keepPrivateWithoutPublicUrl(res, config);
      render(res, 'pages/docs/api', { title: 'API reference', page, hasAgentContext: profile.apiDocuments.agentContext });
    },
    agents(req: Request, res: Response) {
      keepPrivateWithoutPublicUrl(res, config);
      render(res, 'pages/docs/agents', { title: 'For agents', guide: agentGuide(profile, baseUrlOf(req, config)) });
    },
  };
}
