import type { Request, Response } from 'express';
import { databaseAnswers, type Db } from '../../db/knex.ts';
import type { RevisionProfile } from '../../revisions.ts';

export function healthController(db: Db, profile: RevisionProfile) {
  return {
    async show(_req: Request, res: Response) {
      res.set('Cache-Control', 'no-store');
      if (await databaseAnswers(db)) res.json({ ok: true, revision: profile.revision });
      else res.status(503).json({ ok: false });
    },
  };
}
