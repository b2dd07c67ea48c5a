import type { Request, Response } from 'express';
import type { AppContext } from '../app-context.ts';
import { databaseAnswers } from '../db/knex.ts';

/**
 * GET /healthz: 200 with the revision while the database answers, else 503. `readIndex`
 * says how this instance answers leaderboard and list reads: `ready` (from its index, with
 * the runs it holds), `building` (through the database until the index is built or
 * rebuilt after a lost listener) or `off` (READ_INDEX=off).
 */
export function healthController({ db, profile, readIndexKeeper }: Pick<AppContext, 'db' | 'profile' | 'readIndexKeeper'>) {
  return {
    async show(_req: Request, res: Response) {
      res.set('Cache-Control', 'no-store');
      const readIndex = readIndexKeeper?.status() ?? { state: 'off', runs: null };
      if (await databaseAnswers(db)) res.json({ ok: true, revision: profile.revision, readIndex });
      else res.status(503).json({ ok: false });
    },
  };
}
