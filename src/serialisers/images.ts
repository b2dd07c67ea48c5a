import { imageContentPath } from '../lib/image-pipeline.ts';
import type { StoredImage } from '../services/images.service.ts';
import { absoluteUrl } from './origin.ts';

/** A stored image as every answer shows it (a listing's photo, a report image): absolute addresses of the image and its thumbnail. */
export function imageJson(image: Pick<StoredImage, 'id' | 'contentType' | 'width' | 'height'>, origin: string) {
  return {
    id: image.id,
    url: absoluteUrl(origin, imageContentPath(image.id)),
    thumbnailUrl: absoluteUrl(origin, imageContentPath(image.id, 'thumb')),
    contentType: image.contentType,
    width: image.width,
    height: image.height,
  };
}
