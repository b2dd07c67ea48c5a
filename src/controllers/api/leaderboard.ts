import type { Request, Response } from 'express';
import { sendRunExport } from '../../lib/run-export.ts';
import { parseOrThrow } from '../../lib/validation.ts';
import { leaderboardQuerySchema } from '../../schemas/leaderboard-query.schema.ts';
import { leaderboardJson, leaderboardPage, leaderboardRows, type LeaderboardDeps } from '../../services/leaderboard.service.ts';

export function leaderboardController(deps: LeaderboardDeps) {
  return {
    async show(req: Request, res: Response) {
      const query = parseOrThrow(leaderboardQuerySchema(deps.profile), req.query);
      if (query.format !== 'json') {
        const day = deps.clock.now().toISOString().slice(0, 10);
        return sendRunExport(res, query.format, `leaderboard-${day}`, leaderboardRows(deps, query));
      }
      res.type('application/json').send(leaderboardJson(deps.profile, await leaderboardPage(deps, query, { viewerId: req.actor?.user.id ?? null })));
    },
  };
}
