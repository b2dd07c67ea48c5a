import type { Request, RequestHandler, Response } from 'express';
import { BadRequest } from '../../lib/errors.ts';
import { sendRunExport } from '../../lib/run-export.ts';
import { parseOrThrow } from '../../lib/validation.ts';
import type { LegacyAlias } from '../../revisions.ts';
import { idempotencyKeySchema } from '../../schemas/headers.schema.ts';
import { speedTestListQuerySchema } from '../../schemas/speed-test-query.schema.ts';
import { runJson } from '../../services/run-reads.ts';
import {
  dryRunSpeedTest,
  getSpeedTestDocument,
  listSpeedTests,
  speedTestListJson,
  speedTestRows,
  submitSpeedTest,
  type SpeedTestDeps,
} from '../../services/speed-tests.service.ts';

/** `Idempotency-Key`: optional, 1-255 visible ASCII characters. */
function idempotencyKey(req: Request): string | undefined {
  const key = req.get('Idempotency-Key');
  if (key === undefined) return undefined;
  const checked = idempotencyKeySchema.safeParse(key);
  if (!checked.success) throw new BadRequest(checked.error.issues[0]!.message);
  return key;
}

export function speedTestsController(deps: SpeedTestDeps) {
  const { profile } = deps;
  return {
    async submit(req: Request, res: Response) {
      const result = await submitSpeedTest(deps, req.actor!.user.id, req.body, idempotencyKey(req));
      res.location(`${profile.resultsPath}/${result.run.id}`);
      res.set('X-RateLimit-Remaining', String(result.rateLimit.remaining));
      res.set('X-RateLimit-Reset', String(Math.ceil(result.rateLimit.resetAt.getTime() / 1000)));
      if (result.replayed) res.set('Idempotent-Replayed', 'true');
      res.status(201).json(result.run);
    },

    async dryRun(req: Request, res: Response) {
      res.json(await dryRunSpeedTest(deps, req.body));
    },

    async list(req: Request, res: Response) {
      const query = parseOrThrow(speedTestListQuerySchema(profile), req.query);
      if (query.format && query.format !== 'json') {
        const day = deps.clock.now().toISOString().slice(0, 10);
        return sendRunExport(res, query.format, `speed-tests-${day}`, speedTestRows(deps, query));
      }
      res.type('application/json').send(speedTestListJson(profile, await listSpeedTests(deps, query, req.actor?.user.id ?? null)));
    },

    async show(req: Request, res: Response) {
      res.type('application/json').send(runJson(profile, await getSpeedTestDocument(deps, String(req.params.id), req.actor?.user.id ?? null)));
    },
  };
}

/** Marks answers given on a revision-2 path kept by a revision-3 deployment. */
export function deprecatedAlias(alias: LegacyAlias): RequestHandler {
  return (_req, res, next) => {
    for (const [name, value] of Object.entries(alias.headers)) res.set(name, value);
    next();
  };
}
