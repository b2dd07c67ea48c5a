import type { Request, Response } from 'express';
import type { RevisionProfile } from '../../revisions.ts';
import { render } from '../../views.ts';

export function homeController(profile: RevisionProfile, publicUrl: string) {
  return {
    show(_req: Request, res: Response) {
      render(res, 'pages/home', { title: 'Local LLM inference leaderboard', resultsPath: profile.resultsPath, publicUrl });
    },
  };
}
