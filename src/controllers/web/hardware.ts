import type { NextFunction, Request, Response } from 'express';
import type { AppContext } from '../../app-context.ts';
import { NotFound } from '../../lib/errors.ts';
import { DEVICE_SLUG, deviceOf, type DeviceFacts } from '../../lib/hardware-devices.ts';
import { parseOrThrow } from '../../lib/validation.ts';
import { messages } from '../../messages.ts';
import { isHtmxRequest } from '../../middleware/request-kind.ts';
import { offsetQuerySchema } from '../../schemas/page-query.schema.ts';
import { speedByModelChart } from '../../web/charts/hardware-charts.ts';
import { queryString } from '../../web/query.ts';
import { render } from '../../web/views.ts';

const PAGE_SIZE = 50;
const DEVICES_PER_PAGE = 100;
const UUID_SHAPED = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The hardware index, one page per device (GPU, chip or CPU), and one hardware profile's page. */
export function hardwarePagesController({ services }: AppContext) {
  const viewer = (req: Request) => req.actor?.user.id ?? null;

  return {
    /** Devices with approved runs, most runs first, grouped by kind; paged. */
    async index(req: Request, res: Response) {
      const { offset } = parseOrThrow(offsetQuerySchema, req.query);
      const devices = await services.hardware.devices();
      const page = devices.slice(offset, offset + DEVICES_PER_PAGE);
      render(res, 'pages/hardware/index', {
        title: 'Hardware',
        devices: page,
        total: devices.length,
        offset,
        limit: DEVICES_PER_PAGE,
        params: {},
        queryString,
      });
    },

    /**
     * `/hardware/<slug>`: a device's page. A uuid is a hardware profile's address and goes on
     * to the profile's route (`/hardware/:id`); anything that is not a slug names no device.
     */
    async device(req: Request, res: Response, next: NextFunction) {
      const key = String(req.params.device);
      if (UUID_SHAPED.test(key)) return next();
      if (!DEVICE_SLUG.test(key)) throw new NotFound(messages.hardwareDeviceNotFound);
      const { offset } = parseOrThrow(offsetQuerySchema, req.query);
      const { device, best, models } = await services.hardware.device(key, { limit: PAGE_SIZE, offset }, viewer(req));
      const data = { device, best, models, offset, limit: PAGE_SIZE, params: {}, queryString };
      if (isHtmxRequest(req)) return render(res, 'partials/hardware/best-runs', data);
      render(res, 'pages/hardware/device', { ...data, title: device.name, chart: speedByModelChart(best.slice(0, 20), device.name) });
    },

    /** One hardware profile and its runs across models, with a link up to its device. */
    async profile(req: Request, res: Response) {
      const { offset } = parseOrThrow(offsetQuerySchema, req.query);
      const { hardware, runs, total } = await services.hardware.get(String(req.params.id), { limit: PAGE_SIZE, offset }, viewer(req));
      render(res, 'pages/hardware/show', {
        title: 'Hardware profile',
        hardware,
        device: deviceOf(hardware as unknown as DeviceFacts),
        runs,
        total,
        offset,
        limit: PAGE_SIZE,
      });
    },
  };
}
