import { Router, type RequestHandler } from 'express';
import { apiOperations } from '../api/index.ts';
import { apiCall, type ApiOperation } from '../api/operation.ts';
import type { AppContext } from '../app-context.ts';
import { notFound } from '../middleware/errors.ts';
import { requireAuth } from '../middleware/require-auth.ts';
import { validate, validated } from '../middleware/validate.ts';
import { imageUpload, imageUploadOfEither } from '../web/image-upload.ts';
import { deprecationHeaders } from '../constants.ts';

/** Marks every answer given on a revision-2 path that a revision-3 deployment keeps, naming its own successor. */
function markDeprecated(successor: string): RequestHandler {
  const headers = deprecationHeaders(successor);
  return (_req, res, next) => {
    res.set(headers);
    next();
  };
}

/** What runs before an operation's handler, all from its declaration: alias headers, auth, an upload's parsing, validation. */
function middlewareOf(op: ApiOperation): RequestHandler[] {
  return [
    ...(op.successor ? [markDeprecated(op.successor)] : []),
    ...(op.auth === 'public' ? [] : [requireAuth(op.auth)]),
    ...(op.upload ? [op.upload.alsoField ? imageUploadOfEither : imageUpload] : []),
    validate({ params: op.pathParams, query: op.query?.schema, headers: op.headers, body: op.body?.schema }),
  ];
}

/** Everything under /api: every declared operation of the revision (src/api). Unknown paths end in the JSON 404. */
export function apiRoutes(app: AppContext): Router {
  const router = Router();
  for (const op of apiOperations(app.profile)) {
    const handler: RequestHandler = (req, res) => op.handle(apiCall(req, res, app, validated(res)));
    router[op.method](op.path.replace(/^\/api/, ''), ...middlewareOf(op), handler);
  }
  router.use(notFound);
  return router;
}
