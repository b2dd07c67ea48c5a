import type { Request, Response } from 'express';

/** Who the credentials belong to: lets an agent check its key before submitting. */
export function meController() {
  return {
    show(req: Request, res: Response) {
      const { user, via } = req.actor!;
      res.json({
        id: user.id,
        username: user.username,
        displayName: user.displayName,
        isVerified: user.isVerified,
        isAdmin: user.isAdmin,
        authenticatedWith: via === 'key' ? 'api_key' : 'session',
      });
    },
  };
}
