import type { Request, Response } from 'express';
import { z } from 'zod';
import type { AppContext } from '../../app-context.ts';
import { messages } from '../../messages.ts';
import { compareRows } from '../presentation/compare-rows.ts';
import { render } from '../../web/views.ts';

/** Runs the compare view puts side by side. */
export const COMPARE_MIN_RUNS = 2;
export const COMPARE_MAX_RUNS = 4;
/** Ids read from the address at most (anything longer is refused before any id is checked). */
const MAX_IDS_READ = 20;

const isRunId = (id: string) => z.uuid().safeParse(id).success;

/** The ids of `?runs=a,b` and of the row checkboxes' `?runs=a&runs=b`, trimmed, in order, once each. */
function requestedIds(value: unknown): string[] {
  const parts = (Array.isArray(value) ? value : [value]).filter((part): part is string => typeof part === 'string');
  return [
    ...new Set(
      parts
        .flatMap((part) => part.split(','))
        .map((id) => id.trim().toLowerCase())
        .filter(Boolean),
    ),
  ];
}

/** `/compare?runs=a,b,c`: 2 to 4 approved runs side by side; bad addresses get the page with what is wrong. */
export function comparePagesController({ services }: AppContext) {
  return {
    async show(req: Request, res: Response) {
      const ids = requestedIds(req.query.runs);
      // The checkboxes send one parameter per run: answer at the short, shareable address.
      if (Array.isArray(req.query.runs) && ids.length > 0 && ids.length <= COMPARE_MAX_RUNS && ids.every(isRunId)) {
        return res.redirect(302, `/compare?runs=${ids.join(',')}`);
      }
      const problems: string[] = [];
      let status = 200;
      const bad = ids.slice(0, MAX_IDS_READ).filter((id) => !isRunId(id));
      if (ids.length > COMPARE_MAX_RUNS) problems.push(messages.compareTooManyRuns(COMPARE_MAX_RUNS));
      else if (bad.length > 0) problems.push(messages.compareBadIds(bad.map((id) => `“${id.slice(0, 64)}”`).join(', ')));
      if (problems.length > 0) status = 400;
      const asked = problems.length === 0 ? ids : [];
      const runs = await services.speedTestContext.approvedRuns(asked, req.actor?.user.id ?? null);
      const unknown = asked.filter((id) => !runs.some((run) => run.id === id));
      if (unknown.length > 0) {
        problems.push(messages.compareUnknownRuns(unknown.join(', ')));
        status = 404;
      }
      if (problems.length === 0 && runs.length < COMPARE_MIN_RUNS) {
        problems.push(messages.compareNeedsRuns(COMPARE_MIN_RUNS, COMPARE_MAX_RUNS));
        if (ids.length > 0) status = 400;
      }
      render(
        res,
        'pages/compare',
        {
          title: runs.length >= COMPARE_MIN_RUNS ? `Compare ${runs.length} runs` : 'Compare runs',
          runs,
          rows: runs.length >= COMPARE_MIN_RUNS ? compareRows(runs) : [],
          problems,
          min: COMPARE_MIN_RUNS,
          max: COMPARE_MAX_RUNS,
        },
        status,
      );
    },
  };
}
