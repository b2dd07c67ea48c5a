import { z } from 'zod';
import { messages } from '../messages.ts';
import { predictionParameterDescriptions, predictionQuerySchema, predictionResponseSchema } from '../schemas/predictions.schema.ts';
import { example, invalidQuery, operation, type ApiResource } from './operation.ts';

const predictionUnknownSchema = z.object({
  error: z.string(),
  unknown: z.enum(['model', 'device', 'quantization']).meta({ description: 'What the prediction could not place.' }),
});

/** Predictions for setups nobody has measured (DECISIONS.md "Prediction"; src/services/predictions.service.ts). */
export const predictionsApi: ApiResource = {
  tag: {
    name: 'Predictions',
    description:
      'Will it run, and how fast? Predicted decode speed (with an 80% interval), prefill and TTFT where runs allow, and whether it fits in memory, for a model, quantization and device nobody may have measured. Predictions are never runs: they do not appear on the leaderboard.',
  },

  responses: () => ({ Prediction: predictionResponseSchema, PredictionUnknown: predictionUnknownSchema }),

  operations: () => [
    operation({
      operationId: 'getPrediction',
      route: 'GET /api/predictions',
      summary: 'Predict a setup: decode tok/s with an 80% interval, prefill, TTFT, fits in memory',
      description:
        "The decode roofline (memory bandwidth ÷ bytes read per token, from the model's active parameters and the quantization's bits) times an efficiency learned from the board's approved single-stream runs judged plausible, by hardware class, device, card count and model size, engine and quantization, each shrunk toward the broader group where runs are few. The interval is calibrated on runs the model did not see, and is wider where fewer runs support it. `basis` names the method and the runs it leaned on; `trackRecord` says how earlier predictions matched runs measured later. Every answer is a prediction (`prediction.kind`), never a run.",
      auth: 'public',
      query: { schema: predictionQuerySchema, descriptions: predictionParameterDescriptions },
      responses: {
        200: { description: 'The prediction, its basis and the track record.', body: 'Prediction' },
        400: invalidQuery({ hardwareName: ['Give hardwareName, or hwClass with the device fields'] }),
        422: {
          description: 'The model, device or quantization is not known, so no roofline can be drawn: the answer names which.',
          body: 'PredictionUnknown',
          examples: {
            device: example('Unknown device', { error: messages.predictionUnknownDevice('Quantum Flux 9000'), unknown: 'device' }),
            model: example('Unknown model', { error: messages.predictionUnknownModel('someorg/No-Such-Model'), unknown: 'model' }),
          },
        },
      },
      async handle({ res, app, query }) {
        res.json(await app.services.predictions.predict(query));
      },
    }),
  ],
};
