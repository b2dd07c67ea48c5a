import { sendRunExport } from '../presentation/export.ts';
import { parameterDescriptions } from '../../openapi/descriptions.ts';
import { leaderboardQuerySchema } from '../reads/leaderboard-query.schema.ts';
import { runResponseSchemas } from '../../schemas/responses.schema.ts';
import { facetDescriptions, leaderboardFacets } from '../facets.ts';
import { leaderboardJson } from '../run-json.ts';
import { answerStableUntil } from '../../middleware/read-cache.ts';
import { exportAlternatives, invalidQuery, operation, type ApiResource } from '../../api/operation.ts';

/** The ranking of approved runs, with every filter, sorts, best run per hardware and exports. */
export const leaderboardApi: ApiResource = {
  tag: { name: 'Leaderboard', description: 'Runs ranked by output tokens per second.' },

  responses: (profile) => ({ LeaderboardPage: runResponseSchemas(profile).leaderboardPage }),

  operations: (profile) => [
    operation({
      operationId: 'getLeaderboard',
      followsReadIndex: true,
      route: 'GET /api/leaderboard',
      summary: 'Ranked runs',
      description: 'Approved runs ranked by tokSOut, descending (or by `sort`). Unknown parameters are a 400.',
      auth: 'public',
      query: {
        schema: leaderboardQuerySchema(profile),
        descriptions: { ...facetDescriptions(leaderboardFacets), ...parameterDescriptions.leaderboard },
      },
      responses: {
        200: { description: 'One page of ranked runs.', body: 'LeaderboardPage', alternatives: exportAlternatives },
        400: invalidQuery({ limit: [`Must be at most ${profile.speedTests.leaderboard.limit.max}`] }),
      },
      async handle({ res, app, query, viewerId }) {
        const { leaderboard } = app.services;
        if (query.format !== 'json') {
          const day = app.clock.now().toISOString().slice(0, 10);
          return sendRunExport(res, query.format, `leaderboard-${day}`, leaderboard.rows(query));
        }
        const page = await leaderboard.page(query, { viewerId });
        answerStableUntil(res, page.stableUntilMs);
        res.type('application/json').send(leaderboardJson(profile, page));
      },
    }),
  ],
};
