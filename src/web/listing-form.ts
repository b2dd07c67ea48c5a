import type { Request } from 'express';
import { listingCreateSchema, listingConditions, type ListingCreate } from '../schemas/marketplace.schema.ts';
import { parseForm, postedFields, type FormResult } from './forms.ts';
import { usdPerUnit } from '../data/fx-rates.ts';

/**
 * The listing form of /settings/listings: posted text turned into the API's body (a price as
 * a number, the ticked proof runs as a list, an empty external link as none) and checked with
 * the API's own schema, so the page and the API accept exactly the same listings.
 */

/** The form's text fields, in the order the form shows them. */
export const LISTING_FORM_FIELDS = [
  'title',
  'description',
  'condition',
  'price',
  'currency',
  'hwClass',
  'hardwareName',
  'hardwareDetails',
  'listingUrl',
  'contactUrl',
] as const;

export const CONDITION_LABELS: Record<(typeof listingConditions)[number], string> = {
  NEW: 'New',
  LIKE_NEW: 'Like new',
  USED: 'Used',
  FOR_PARTS: 'For parts',
};
export const CONDITION_OPTIONS = listingConditions.map((value) => ({ value, label: CONDITION_LABELS[value] }));
export const CURRENCY_OPTIONS = Object.keys(usdPerUnit).map((value) => ({ value, label: value }));

/** The posted values as the API body: numbers where the API takes numbers, lists where it takes lists. */
export function listingFormBody(req: Request): Record<string, unknown> {
  const posted = postedFields(req);
  const body: Record<string, unknown> = {};
  for (const field of LISTING_FORM_FIELDS) {
    const value = posted[field];
    if (typeof value === 'string') body[field] = value;
  }
  const price = typeof posted.price === 'string' ? posted.price.trim() : '';
  // An empty or non-numeric price stays text, so the schema names it.
  if (/^\d+(\.\d+)?$/.test(price)) body.price = Number(price);
  if (body.listingUrl === '') delete body.listingUrl;
  const runs = posted.benchmarkRunIds;
  body.benchmarkRunIds = Array.isArray(runs) ? runs : typeof runs === 'string' ? [runs] : [];
  return body;
}

export function parseListingForm(req: Request): FormResult<ListingCreate> {
  return parseForm(listingCreateSchema, listingFormBody(req));
}
