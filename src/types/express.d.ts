import type { Actor } from '../middleware/authenticate.ts';

declare module 'express-session' {
  interface SessionData {
    userId?: string;
    csrfToken?: string;
    /** Set at sign-up: the next full page shows the first-steps panel once. */
    firstSteps?: boolean;
    /** The run this session just submitted through the form: its page confirms it once. */
    submittedRunId?: string;
  }
}

declare global {
  namespace Express {
    interface Request {
      /** Who is calling: set by `authenticate` from a Bearer key or the session. */
      actor?: Actor;
    }
  }
}
