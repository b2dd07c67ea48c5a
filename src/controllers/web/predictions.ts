import type { Request, Response } from 'express';
import type { AppContext } from '../../app-context.ts';
import { HttpError } from '../../lib/errors.ts';
import { predictionQuerySchema } from '../../schemas/predictions.schema.ts';
import { render } from '../../web/views.ts';

const PAGE = 'pages/predictions/show';

/** The page's fields: the API's, with one memory field read as the device's kind needs it. */
const FIELDS = ['hfId', 'quantization', 'hardwareName', 'gpuCount', 'memoryGb', 'engineName', 'contextDepth', 'concurrency'] as const;

function formOf(req: Request): Record<string, string> {
  const form: Record<string, string> = {};
  for (const name of FIELDS) {
    const value = req.query[name];
    if (typeof value === 'string' && value.trim() !== '') form[name] = value.trim().slice(0, 300);
  }
  return form;
}

/**
 * /predict, "Will it run, and how fast?": the same answer as GET /api/predictions for a model,
 * quantization and device typed as the model box and the hardware resolver read them, with
 * its basis (the runs it leaned on, linked) and the track record of earlier predictions.
 */
export function predictionPagesController({ services }: AppContext) {
  const { predictions } = services;
  return {
    async show(req: Request, res: Response) {
      const form = formOf(req);
      const base = { title: 'Will it run?', form };
      if (!form.hfId && !form.hardwareName) return render(res, PAGE, { ...base, trackRecord: await predictions.trackRecord() });
      const { memoryGb, ...rest } = form;
      const parsed = predictionQuerySchema.safeParse({
        ...rest,
        ...(memoryGb ? { vramGb: memoryGb, unifiedMemoryGb: memoryGb, ramGb: memoryGb } : {}),
      });
      if (!parsed.success) {
        const errors = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'form'}: ${issue.message}`);
        return render(res, PAGE, { ...base, errors, trackRecord: await predictions.trackRecord() }, 400);
      }
      try {
        const answer = await predictions.predict(parsed.data);
        render(res, PAGE, { ...base, answer, trackRecord: answer.trackRecord });
      } catch (error) {
        if (!(error instanceof HttpError) || error.status !== 422) throw error;
        render(res, PAGE, { ...base, errors: [error.message], trackRecord: await predictions.trackRecord() }, 422);
      }
    },
  };
}
