import type { Request, Response } from 'express';
import { listSpeedTests, type SpeedTestDeps } from '../../services/speed-tests.service.ts';
import { render } from '../../views.ts';

const LATEST_RUNS = 10;

export function homeController(deps: SpeedTestDeps, publicUrl: string) {
  return {
    async show(_req: Request, res: Response) {
      const latest = await listSpeedTests(deps, { limit: LATEST_RUNS, offset: 0 });
      render(res, 'pages/home', {
        title: 'Local LLM inference leaderboard',
        resultsPath: deps.profile.resultsPath,
        publicUrl,
        latest: latest.benchmarks,
        totalRuns: latest.total,
      });
    },
  };
}
