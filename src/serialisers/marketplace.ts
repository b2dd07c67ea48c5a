import type { Listing, ListingImage } from '../services/marketplace.service.ts';
import { imageJson } from './images.ts';
import { absoluteUrl, userPagePath } from './origin.ts';

/** A listing's photo as the API answers it (`ListingImage`): the image with its place among the listing's photos. */
export function listingImageJson(image: ListingImage, origin: string) {
  return { ...imageJson(image, origin), sortOrder: image.sortOrder };
}

/** A listing as the API answers it (`Listing`): absolute URLs for the seller, the images and (without its own) the listing. */
export function listingJson(listing: Listing, origin: string) {
  const { seller, images, removedReason: _private, ...rest } = listing;
  return {
    ...rest,
    seller: { username: seller.username, displayName: seller.displayName, profileUrl: absoluteUrl(origin, userPagePath(seller.username)) },
    images: images.map((image) => listingImageJson(image, origin)),
    listingUrl: listing.listingUrl ?? absoluteUrl(origin, `/marketplace/${listing.id}`),
  };
}
