import type { Request, Response } from 'express';
import type { AppContext } from '../app-context.ts';
import { databaseAnswers } from '../db/knex.ts';

/** GET /healthz: 200 with the revision while the database answers, else 503. */
export function healthController({ db, profile }: Pick<AppContext, 'db' | 'profile'>) {
  return {
    async show(_req: Request, res: Response) {
      res.set('Cache-Control', 'no-store');
      if (await databaseAnswers(db)) res.json({ ok: true, revision: profile.revision });
      else res.status(503).json({ ok: false });
    },
  };
}
