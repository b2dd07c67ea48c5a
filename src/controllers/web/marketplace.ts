import type { Request, Response } from 'express';
import { z } from 'zod';
import type { AppContext } from '../../app-context.ts';
import { hwClasses } from '../../constants.ts';
import { fxRatesDate } from '../../data/fx-rates.ts';
import { Conflict, HttpError, NotFound, ValidationFailed } from '../../lib/errors.ts';
import { IMAGE_CONTENT_TYPES, IMAGE_MAX_BYTES_LABEL, IMAGE_MAX_PIXELS_LABEL, processImageUpload } from '../../lib/image-pipeline.ts';
import { parseOrThrow } from '../../lib/validation.ts';
import { ensureCsrfToken } from '../../middleware/csrf.ts';
import { isHtmxRequest } from '../../middleware/request-kind.ts';
import { messages } from '../../messages.ts';
import { imageContentPath } from '../../lib/image-pipeline.ts';
import { rejectSpeedTestSchema } from '../../schemas/admin.schema.ts';
import { LISTING_MAX_IMAGES, LISTING_MAX_PROOF_RUNS, listingStatuses, type ListingStatus } from '../../schemas/marketplace.schema.ts';
import { wholeNumber } from '../../schemas/query-params.ts';
import { browseSorts, type Listing } from '../../services/marketplace.service.ts';
import { parseForm, postedFields, postedValues, HW_CLASS_OPTIONS } from '../../web/forms.ts';
import { uploadedImage } from '../../web/image-upload.ts';
import { CONDITION_LABELS, CONDITION_OPTIONS, CURRENCY_OPTIONS, parseListingForm } from '../../web/listing-form.ts';
import { render } from '../../web/views.ts';

/**
 * The marketplace pages: /marketplace (cards, filters, sorts, pages), /marketplace/{id} (one
 * listing), the seller's /settings/listings (create, edit, photos, publish, sold, remove:
 * plain forms that htmx enhances) and /admin/listings (removal with a reason, audited).
 */

export const MARKETPLACE_PAGE_SIZE = 24;
const ADMIN_PAGE_SIZE = 50;

const SORT_LABELS: Record<(typeof browseSorts)[number], string> = {
  newest: 'Newest',
  price_asc: 'Price, lowest first',
  price_desc: 'Price, highest first',
  usd_per_tok_s: 'USD per output tok/s, lowest first',
};

const priceParam = z
  .string()
  .trim()
  .regex(/^\d{1,12}(\.\d{1,2})?$/, 'Must be a number of US dollars')
  .transform(Number)
  .optional();
/** A filter left empty in the form is no filter. */
const emptyIsUnset = <S extends z.ZodType>(schema: S) => z.preprocess((value) => (value === '' ? undefined : value), schema);

const browseQuerySchema = z.strictObject({
  hwClass: emptyIsUnset(z.enum(hwClasses).optional()),
  condition: emptyIsUnset(z.enum(['NEW', 'LIKE_NEW', 'USED', 'FOR_PARTS']).optional()),
  priceMin: emptyIsUnset(priceParam),
  priceMax: emptyIsUnset(priceParam),
  sort: emptyIsUnset(z.enum(browseSorts).default('newest')),
  page: emptyIsUnset(wholeNumber(1, 10_000).default(1)),
});
type BrowseForm = z.output<typeof browseQuerySchema>;

const adminQuerySchema = z.strictObject({
  status: emptyIsUnset(z.enum(listingStatuses).optional()),
  page: emptyIsUnset(wholeNumber(1, 10_000).default(1)),
});

const moveSchema = z.object({ direction: z.enum(['up', 'down']) });

function browseQueryString(query: BrowseForm, page: number): string {
  const search = new URLSearchParams();
  for (const key of ['hwClass', 'condition', 'priceMin', 'priceMax'] as const)
    if (query[key] !== undefined) search.set(key, String(query[key]));
  if (query.sort !== 'newest') search.set('sort', query.sort);
  if (page > 1) search.set('page', String(page));
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** What the cards and the listing page show besides the listing: addresses, labels, price texts. */
function listingView(listing: Listing) {
  const money = (amount: number, currency: string) =>
    `${amount.toLocaleString('en-US', { minimumFractionDigits: 0, maximumFractionDigits: 2 })} ${currency}`;
  return {
    listing,
    href: `/marketplace/${listing.id}`,
    cover: listing.images[0]
      ? { src: imageContentPath(listing.images[0].id, 'thumb'), width: listing.images[0].thumbWidth, height: listing.images[0].thumbHeight }
      : null,
    images: listing.images.map((image) => ({ ...image, src: imageContentPath(image.id), thumbSrc: imageContentPath(image.id, 'thumb') })),
    price: money(listing.price, listing.currency),
    priceUsd: listing.currency === 'USD' ? null : money(listing.priceUsd, 'USD'),
    condition: CONDITION_LABELS[listing.condition],
    hwClass: HW_CLASS_OPTIONS.find((option) => option.value === listing.hwClass)?.label ?? listing.hwClass,
  };
}

export function marketplacePagesController({ services }: AppContext) {
  const { marketplace } = services;

  /** The seller's listing page (edit form, photos, actions), with a form's errors when there are some. */
  async function showEdit(
    req: Request,
    res: Response,
    listing: Listing,
    state: { fieldErrors?: Record<string, string[]>; formErrors?: string[]; values?: Record<string, unknown>; notice?: string } = {},
    status = 200,
  ) {
    ensureCsrfToken(req);
    // The listing's own proof first, so a run older than the latest ones stays ticked (and kept on save).
    const latest = await marketplace.proofCandidates(req.actor!.user.id);
    const candidates = [...listing.benchmarkRuns, ...latest.filter((run) => !listing.benchmarkRunIds.includes(run.id))];
    render(
      res,
      'pages/marketplace/edit',
      {
        title: `Edit: ${listing.title}`,
        view: listingView(listing),
        candidates,
        values: state.values ?? formValuesOf(listing),
        fieldErrors: state.fieldErrors ?? {},
        formErrors: state.formErrors ?? [],
        notice: state.notice,
        ...formOptions(),
      },
      status,
    );
  }

  function formOptions() {
    return {
      conditionOptions: CONDITION_OPTIONS,
      currencyOptions: CURRENCY_OPTIONS,
      hwClassOptions: HW_CLASS_OPTIONS,
      maxImages: LISTING_MAX_IMAGES,
      maxProofRuns: LISTING_MAX_PROOF_RUNS,
      imageRules: `PNG, JPEG or WebP, at most ${IMAGE_MAX_BYTES_LABEL} and ${IMAGE_MAX_PIXELS_LABEL}. Location and camera data are removed.`,
      accept: IMAGE_CONTENT_TYPES.join(','),
    };
  }

  function formValuesOf(listing: Listing): Record<string, unknown> {
    return {
      title: listing.title,
      description: listing.description,
      condition: listing.condition,
      price: String(listing.price),
      currency: listing.currency,
      hwClass: listing.hwClass,
      hardwareName: listing.hardwareName,
      hardwareDetails: listing.hardwareDetails,
      listingUrl: listing.listingUrl ?? '',
      contactUrl: listing.contactUrl,
      benchmarkRunIds: listing.benchmarkRunIds,
    };
  }

  const postedFormValues = (req: Request) => {
    const posted = postedFields(req);
    const runs = posted.benchmarkRunIds;
    return { ...postedValues(posted), benchmarkRunIds: Array.isArray(runs) ? runs : typeof runs === 'string' ? [runs] : [] };
  };

  /** A seller's action whose refusal (the listing's state, a bad photo) shows on the listing's page. */
  function sellerAction(
    action: (sellerId: string, id: string, req: Request) => Promise<unknown>,
    done: string,
    thenTo: 'listing' | 'list' = 'listing',
  ) {
    return async (req: Request, res: Response) => {
      const sellerId = req.actor!.user.id;
      const id = String(req.params.id);
      await marketplace.getOwn(sellerId, id);
      try {
        await action(sellerId, id, req);
      } catch (error) {
        const problem = shownProblem(error);
        if (!problem) throw error;
        return showEdit(
          req,
          res,
          await marketplace.getOwn(sellerId, id),
          { fieldErrors: problem.fieldErrors, formErrors: problem.formErrors },
          problem.status,
        );
      }
      if (thenTo === 'list') return redirect(req, res, `/settings/listings?done=${done}`);
      return redirect(req, res, `/settings/listings/${id}?done=${done}`);
    };
  }

  const DONE_NOTICES: Record<string, string> = {
    created: 'Listing saved as a draft. Add photos, then publish it.',
    saved: 'Changes saved.',
    published: 'Published: the listing is public now.',
    sold: 'Marked sold: it has left the marketplace.',
    removed: 'Listing removed. Its photos stop being served within 24 hours.',
    uploaded: 'Photo added.',
    photo: 'Photos updated.',
  };
  const noticeOf = (req: Request) => (typeof req.query.done === 'string' ? DONE_NOTICES[req.query.done] : undefined);

  return {
    /** GET /marketplace */
    async browse(req: Request, res: Response) {
      const query = parseOrThrow(browseQuerySchema, req.query);
      const { listings, total } = await marketplace.browse({
        hwClass: query.hwClass,
        condition: query.condition,
        priceMin: query.priceMin,
        priceMax: query.priceMax,
        sort: query.sort,
        limit: MARKETPLACE_PAGE_SIZE,
        offset: (query.page - 1) * MARKETPLACE_PAGE_SIZE,
      });
      const pages = Math.max(1, Math.ceil(total / MARKETPLACE_PAGE_SIZE));
      render(res, isHtmxRequest(req) ? 'partials/marketplace/results' : 'pages/marketplace/index', {
        title: 'Hardware marketplace',
        cards: listings.map(listingView),
        total,
        query,
        page: query.page,
        pages,
        pageHref: (n: number) => `/marketplace${browseQueryString(query, n)}`,
        fxRatesDate,
        hwClassOptions: [{ value: '', label: 'Any' }, ...HW_CLASS_OPTIONS],
        conditionOptions: [{ value: '', label: 'Any' }, ...CONDITION_OPTIONS],
        sortOptions: browseSorts.map((value) => ({ value, label: SORT_LABELS[value] })),
      });
    },

    /** GET /marketplace/:id: an ACTIVE listing; its seller and admins also see it in other states. */
    async show(req: Request, res: Response) {
      const listing = await marketplace.get(String(req.params.id));
      const viewer = req.actor?.user;
      if (listing.status !== 'ACTIVE' && viewer?.id !== listing.seller.id && !viewer?.isAdmin) throw new NotFound(messages.listingNotFound);
      const visible = listing;
      render(res, 'pages/marketplace/show', {
        title: visible.title,
        view: listingView(visible),
        fxRatesDate,
        own: viewer?.id === visible.seller.id,
      });
    },

    /** GET /settings/listings: the seller's listings in every state, and the new-listing form. */
    async mine(req: Request, res: Response) {
      ensureCsrfToken(req);
      const sellerId = req.actor!.user.id;
      const [{ listings }, candidates] = await Promise.all([
        marketplace.mine(sellerId, { limit: 100, offset: 0 }),
        marketplace.proofCandidates(sellerId),
      ]);
      render(res, 'pages/marketplace/mine', {
        title: 'Your listings',
        cards: listings.map(listingView),
        candidates,
        values: { condition: 'USED', currency: 'USD', hwClass: 'DISCRETE_GPU', benchmarkRunIds: [] },
        fieldErrors: {},
        formErrors: [],
        notice: noticeOf(req),
        ...formOptions(),
      });
    },

    /** POST /settings/listings: a new DRAFT. */
    async create(req: Request, res: Response) {
      const sellerId = req.actor!.user.id;
      const form = parseListingForm(req);
      const again = async (fieldErrors: Record<string, string[]>, formErrors: string[]) => {
        ensureCsrfToken(req);
        const [{ listings }, candidates] = await Promise.all([
          marketplace.mine(sellerId, { limit: 100, offset: 0 }),
          marketplace.proofCandidates(sellerId),
        ]);
        render(
          res,
          'pages/marketplace/mine',
          {
            title: 'Your listings',
            cards: listings.map(listingView),
            candidates,
            values: postedFormValues(req),
            fieldErrors,
            formErrors,
            ...formOptions(),
          },
          400,
        );
      };
      if (!form.ok) return again(form.fieldErrors, form.formErrors);
      try {
        const listing = await marketplace.create(sellerId, form.data);
        return redirect(req, res, `/settings/listings/${listing.id}?done=created`);
      } catch (error) {
        const problem = shownProblem(error);
        if (!problem) throw error;
        return again(problem.fieldErrors, problem.formErrors);
      }
    },

    /** GET /settings/listings/:id: edit, photos and actions. */
    async edit(req: Request, res: Response) {
      const listing = await marketplace.getOwn(req.actor!.user.id, String(req.params.id));
      await showEdit(req, res, listing, { notice: noticeOf(req) });
    },

    /** POST /settings/listings/:id: save the form. */
    async update(req: Request, res: Response) {
      const sellerId = req.actor!.user.id;
      const id = String(req.params.id);
      const listing = await marketplace.getOwn(sellerId, id);
      const form = parseListingForm(req);
      if (!form.ok)
        return showEdit(
          req,
          res,
          listing,
          { fieldErrors: form.fieldErrors, formErrors: form.formErrors, values: postedFormValues(req) },
          400,
        );
      try {
        await marketplace.update(sellerId, id, { ...form.data, listingUrl: form.data.listingUrl ?? null });
      } catch (error) {
        const problem = shownProblem(error);
        if (!problem) throw error;
        return showEdit(req, res, listing, { ...problem, values: postedFormValues(req) }, problem.status);
      }
      return redirect(req, res, `/settings/listings/${id}?done=saved`);
    },

    publish: sellerAction((sellerId, id) => marketplace.publish(sellerId, id), 'published'),
    sold: sellerAction((sellerId, id) => marketplace.markSold(sellerId, id), 'sold'),
    remove: sellerAction((sellerId, id) => marketplace.remove(sellerId, id), 'removed', 'list'),

    /** POST /settings/listings/:id/images (multipart, parsed before the CSRF check). */
    upload: sellerAction(
      async (sellerId, id, req) => marketplace.addImage(sellerId, id, await processImageUpload(uploadedImage(req))),
      'uploaded',
    ),

    /** POST /settings/listings/:id/images/:imageId/move (direction=up|down) */
    moveImage: sellerAction(async (sellerId, id, req) => {
      const form = parseForm(moveSchema, postedFields(req));
      if (!form.ok) throw new ValidationFailed({ fieldErrors: form.fieldErrors, formErrors: form.formErrors });
      await marketplace.moveImage(sellerId, id, String(req.params.imageId), form.data.direction);
    }, 'photo'),

    /** POST /settings/listings/:id/images/:imageId/delete */
    deleteImage: sellerAction((sellerId, id, req) => marketplace.deleteImage(sellerId, id, String(req.params.imageId)), 'photo'),

    /** GET /admin/listings */
    async adminList(req: Request, res: Response) {
      ensureCsrfToken(req);
      await showAdmin(req, res, parseOrThrow(adminQuerySchema, req.query));
    },

    /** POST /admin/listings/:id/remove (reason required; audited). */
    async adminRemove(req: Request, res: Response) {
      const id = String(req.params.id);
      const listing = await marketplace.get(id);
      const form = parseForm(rejectSpeedTestSchema, { reason: postedFields(req).reason });
      const back = adminBack(postedFields(req).back);
      if (!form.ok)
        return showAdmin(
          req,
          res,
          back,
          { [id]: { error: form.fieldErrors.reason?.join(' ') ?? 'A reason is required', reason: String(postedFields(req).reason ?? '') } },
          400,
        );
      try {
        await marketplace.adminRemove(req.actor!.user, listing.id, form.data.reason);
      } catch (error) {
        if (!(error instanceof Conflict)) throw error;
        return showAdmin(req, res, back, { [id]: { error: error.message } }, 409);
      }
      redirect(req, res, `/admin/listings${adminQueryString(back)}`);
    },
  };

  async function showAdmin(
    req: Request,
    res: Response,
    query: z.output<typeof adminQuerySchema>,
    rowStates: Record<string, { error: string; reason?: string }> = {},
    status = 200,
  ) {
    ensureCsrfToken(req);
    const { listings, total } = await marketplace.adminList({
      status: query.status as ListingStatus | undefined,
      limit: ADMIN_PAGE_SIZE,
      offset: (query.page - 1) * ADMIN_PAGE_SIZE,
    });
    render(
      res,
      'pages/admin/listings',
      {
        title: 'Listings',
        cards: listings.map(listingView),
        total,
        query,
        back: adminQueryString(query).slice(1),
        statuses: listingStatuses,
        rowStates,
        page: query.page,
        pages: Math.max(1, Math.ceil(total / ADMIN_PAGE_SIZE)),
        pageHref: (n: number) => `/admin/listings${adminQueryString({ ...query, page: n })}`,
      },
      status,
    );
  }
}

/** After a successful post: a 303 to `target` (htmx: the same through HX-Redirect). */
function redirect(req: Request, res: Response, target: string): void {
  if (isHtmxRequest(req)) {
    res.set('HX-Redirect', target).status(204).end();
    return;
  }
  res.redirect(303, target);
}

/** A refusal a page shows next to its form (validation, the listing's state, a photo's size), or null for anything else. */
function shownProblem(error: unknown): { fieldErrors: Record<string, string[]>; formErrors: string[]; status: number } | null {
  if (error instanceof ValidationFailed) return { ...error.details, status: 400 };
  if (error instanceof HttpError && [400, 409, 413].includes(error.status))
    return { fieldErrors: {}, formErrors: [error.message], status: error.status };
  return null;
}

function adminQueryString(query: { status?: string; page: number }): string {
  const search = new URLSearchParams();
  if (query.status) search.set('status', query.status);
  if (query.page > 1) search.set('page', String(query.page));
  const text = search.toString();
  return text ? `?${text}` : '';
}

function adminBack(back: unknown): z.output<typeof adminQuerySchema> {
  const fallback = adminQuerySchema.parse({});
  if (typeof back !== 'string' || back.length > 500) return fallback;
  const parsed = adminQuerySchema.safeParse(Object.fromEntries(new URLSearchParams(back)));
  return parsed.success ? parsed.data : fallback;
}
