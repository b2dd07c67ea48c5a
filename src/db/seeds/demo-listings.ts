import type { Db } from '../knex.ts';
import type { Clock } from '../../lib/clock.ts';
import { loadSharp, processImageUpload } from '../../lib/image-pipeline.ts';
import { runHardwareNames } from '../../lib/marketplace.ts';
import type { RevisionProfile } from '../../revisions.ts';
import type { ListingCondition } from '../../schemas/marketplace.schema.ts';
import { createOfflineServices } from '../../services/index.ts';
import { random } from './demo-runs.ts';

/**
 * A handful of demo marketplace listings (revision 3) for the quick start: demo users sell the
 * hardware their demo runs measured, with those runs as proof and two photos each, drawn by
 * sharp here (no image files in the repository) and stored through the same pipeline as
 * uploads. One listing's proof ran on other hardware, so the warning shows too.
 */

const LISTINGS = 6;

interface Offer {
  title: (hardware: string) => string;
  condition: ListingCondition;
  currency: string;
  /** Price in the currency. */
  price: number;
  description: string;
}

const OFFERS: readonly Offer[] = [
  {
    title: (hw) => `${hw}, used for inference only`,
    condition: 'USED',
    currency: 'USD',
    price: 1450,
    description: 'Ran local models for a year. Never mined on, never overclocked. Original box and bracket.',
  },
  {
    title: (hw) => `${hw} — like new, with receipt`,
    condition: 'LIKE_NEW',
    currency: 'EUR',
    price: 1890,
    description: 'Bought for a project that ended. Fewer than 100 hours of use.',
  },
  {
    title: (hw) => `${hw} workstation, ready to run`,
    condition: 'USED',
    currency: 'GBP',
    price: 2300,
    description: 'Complete machine with the models already downloaded. Pickup preferred.',
  },
  {
    title: (hw) => `${hw} (fan noise, otherwise fine)`,
    condition: 'FOR_PARTS',
    currency: 'USD',
    price: 380,
    description: 'One fan rattles above 60%. Benchmarks below were run after the noise started.',
  },
  {
    title: (hw) => `Sealed ${hw}`,
    condition: 'NEW',
    currency: 'CAD',
    price: 2650,
    description: 'Unopened. The proof runs are from my identical second card.',
  },
  {
    title: (hw) => `${hw} from my homelab`,
    condition: 'USED',
    currency: 'JPY',
    price: 210000,
    description: 'Moving abroad, selling the lab.',
  },
];

/** A photo: a gradient in the listing's colours with a few card-like shapes (PNG or JPEG). */
async function demoPhoto(hue: number, variant: number): Promise<Buffer> {
  const [width, height] = variant === 0 ? [1200, 800] : [900, 900];
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
  <defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1">
    <stop offset="0" stop-color="hsl(${hue},55%,35%)"/><stop offset="1" stop-color="hsl(${(hue + 40) % 360},60%,15%)"/>
  </linearGradient></defs>
  <rect width="100%" height="100%" fill="url(#g)"/>
  <rect x="${width * 0.12}" y="${height * 0.35}" width="${width * 0.76}" height="${height * 0.3}" rx="24" fill="hsl(${hue},10%,12%)" stroke="hsl(${hue},30%,60%)" stroke-width="6"/>
  <circle cx="${width * 0.32}" cy="${height * 0.5}" r="${height * 0.11}" fill="hsl(${hue},15%,25%)"/>
  <circle cx="${width * 0.68}" cy="${height * 0.5}" r="${height * 0.11}" fill="hsl(${hue},15%,25%)"/>
</svg>`;
  const sharp = await loadSharp();
  const image = sharp(Buffer.from(svg));
  return variant === 0 ? image.jpeg({ quality: 80 }).toBuffer() : image.png().toBuffer();
}

export async function seedDemoListings(
  db: Db,
  profile: RevisionProfile,
  clock: Pick<Clock, 'now'>,
  { seed = 20261127 } = {},
): Promise<{ listings: number }> {
  if (!profile.marketplace) return { listings: 0 };
  const demoSellers = db('users').where({ is_demo: true }).select('id');
  if (await db('marketplace_listings').whereIn('seller_id', demoSellers).first('id')) return { listings: 0 };

  // Each demo user's hardware with their best approved runs on it, most measured first.
  const measured: { user_id: string; hardware_id: string; details: Record<string, unknown>; runs: string[] }[] = await db(
    'speed_test_runs as r',
  )
    .join('users as u', 'u.id', 'r.user_id')
    .join('hardware_profiles as h', 'h.id', 'r.hardware_id')
    .where({ 'u.is_demo': true, 'r.status': 'APPROVED' })
    .groupBy('r.user_id', 'r.hardware_id', 'h.details')
    .orderByRaw('count(*) desc, r.user_id, r.hardware_id')
    .limit(LISTINGS * 20)
    .select('r.user_id', 'r.hardware_id', 'h.details', db.raw('(array_agg(r.id order by r.tok_s_out desc, r.id))[1:3] as runs'));
  const seenHardware = new Set<string>();
  const picks = measured.filter((row) => {
    const name = runHardwareNames(row.details)[0];
    if (!name || seenHardware.has(name)) return false;
    seenHardware.add(name);
    return true;
  });
  if (picks.length === 0) return { listings: 0 };

  const rng = random(seed);
  const { marketplace } = createOfflineServices(db, profile, { now: () => clock.now() });
  let created = 0;
  for (const [index, pick] of picks.slice(0, LISTINGS).entries()) {
    const offer = OFFERS[index % OFFERS.length]!;
    const listed = runHardwareNames(pick.details)[0]!;
    // The fourth listing names other hardware than its proof ran on: the page warns.
    const hardwareName = index === 3 && picks.length > LISTINGS ? runHardwareNames(picks[LISTINGS]!.details)[0]! : listed;
    const listing = await marketplace.create(pick.user_id, {
      title: offer.title(hardwareName),
      description: offer.description,
      condition: offer.condition,
      price: offer.price,
      currency: offer.currency,
      hwClass: pick.details.hwClass as never,
      hardwareName,
      hardwareDetails: `Demo listing: sample data generated for the quick start.`,
      contactUrl: 'mailto:seller@example.invalid',
      benchmarkRunIds: pick.runs.slice(0, 1 + Math.floor(rng.next() * pick.runs.length)),
    });
    const hue = Math.floor(rng.next() * 360);
    for (const variant of [0, 1])
      await marketplace.addImage(pick.user_id, listing.id, await processImageUpload(await demoPhoto(hue, variant)));
    await marketplace.publish(pick.user_id, listing.id);
    created += 1;
  }
  return { listings: created };
}
