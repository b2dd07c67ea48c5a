import { expect } from 'chai';
import sharp from 'sharp';
import { fakeHubModels } from '../helpers/fake-hub.ts';
import { submitRunThroughForm, useE2eApp } from './harness.ts';

const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };

const photo = async (name: string, colour: string) => ({
  name,
  mimeType: 'image/jpeg',
  buffer: await sharp({ create: { width: 1000, height: 700, channels: 3, background: colour } })
    .jpeg()
    .toBuffer(),
});

describe('e2e: a seller lists a GPU with photos and a proof run, and buyers find it', () => {
  const e2e = useE2eApp(import.meta.filename);

  it('creates the listing, adds two photos, reorders them, publishes, and sees it in the feed, on /marketplace and on a phone', async function () {
    this.timeout(60_000);
    const page = await e2e.newPage();
    await e2e.signUp(page);

    // The proof: a run of the seller's own.
    await submitRunThroughForm(page, { hfId: fakeHubModels.dense, tokSOut: 91.5 });

    await page.getByRole('link', { name: 'Listings', exact: true }).click();
    await page.waitForURL('**/settings/listings');
    await page.getByLabel('Title').fill('RTX 4090 from a quiet test bench');
    await page.getByLabel('Price', { exact: true }).fill('1499.99');
    await page.getByLabel('Currency').selectOption('EUR');
    await page.getByLabel('Condition').selectOption('LIKE_NEW');
    await page.getByLabel('GPU, chip or CPU').fill('RTX 4090');
    await page.getByLabel('Description').fill('Stock clocks.\nOriginal box.');
    await page.getByLabel('Contact').fill('mailto:seller@example.com');
    await page.getByRole('checkbox', { name: /91\.5 tok\/s/ }).check();
    await page.getByRole('button', { name: 'Save as draft' }).click();
    await page.waitForURL(/\/settings\/listings\/[0-9a-f-]{36}\?done=created$/);
    const id = /listings\/([0-9a-f-]{36})/.exec(page.url())![1]!;

    for (const [name, colour] of [
      ['first.jpg', '#b03030'],
      ['second.jpg', '#3060b0'],
    ] as const) {
      await page.getByLabel('Add a photo').setInputFiles(await photo(name, colour));
      await page.getByRole('button', { name: 'Upload' }).click();
      await page.waitForURL(/\?done=uploaded$/);
    }
    const thumbs = () => page.locator('.listing-photos img').evaluateAll((imgs) => imgs.map((img) => (img as HTMLImageElement).src));
    const [first, second] = await thumbs();
    await page.getByRole('button', { name: 'Move up photo 2' }).click();
    await page.waitForURL(/\?done=photo$/);
    expect(await thumbs()).to.deep.equal([second, first]);
    await e2e.screenshot(page, 'seller-listing');

    await page.getByRole('button', { name: 'Publish' }).click();
    await page.waitForURL(/\?done=published$/);

    // The public feed carries it, with absolute image addresses that load from anywhere.
    const feed = (await (await fetch(`${e2e.baseUrl}/api/marketplace/feed`)).json()) as {
      listings: { id: string; images: { thumbnailUrl: string }[]; proof: { matchesListing: boolean } }[];
    };
    const listed = feed.listings.find((listing) => listing.id === id)!;
    expect(listed.images).to.have.length(2);
    expect(listed.proof.matchesListing).to.equal(true);
    const thumb = await fetch(listed.images[0]!.thumbnailUrl);
    expect(thumb.headers.get('cross-origin-resource-policy')).to.equal('cross-origin');

    // A visitor finds it on /marketplace, filters with htmx, and opens it.
    const visitor = await e2e.newPage();
    await visitor.goto('/marketplace');
    await visitor.getByLabel('Condition').selectOption('LIKE_NEW');
    await visitor.getByRole('button', { name: 'Filter' }).click();
    await visitor.waitForURL(/condition=LIKE_NEW/);
    const card = visitor.locator('.listing-card', { hasText: 'RTX 4090 from a quiet test bench' });
    expect(await card.innerText())
      .to.include('1,499.99 EUR')
      .and.include('91.5 tok/s')
      .and.include('Proof matches listing');
    await e2e.screenshot(visitor, 'marketplace');
    await card.getByRole('link').click();
    await visitor.waitForURL(`**/marketplace/${id}`);
    expect(await visitor.getByText('Stock clocks.').isVisible()).to.equal(true);
    expect(await visitor.getByRole('link', { name: 'Contact the seller' }).getAttribute('href')).to.equal('mailto:seller@example.com');

    // A refusal under htmx (sold meanwhile, elsewhere) shows in the editor, not as a page inside the form.
    await e2e.db('marketplace_listings').where({ id }).update({ status: 'SOLD' });
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Mark sold' }).click();
    await page.getByText('This listing is sold, so it cannot be marked sold').waitFor();
    expect(await page.locator('h1').count()).to.equal(1);
    expect(await page.locator('#listing-editor').count()).to.equal(1);

    // On a phone: nothing sticks out sideways.
    const phone = await e2e.newPage(PHONE);
    for (const path of ['/marketplace', `/marketplace/${id}`]) {
      await phone.goto(path);
      const width = await phone.evaluate(() => document.documentElement.scrollWidth);
      await e2e.screenshot(phone, `phone-${path === '/marketplace' ? 'marketplace' : 'listing'}`);
      expect(width, path).to.be.at.most(390);
    }
  });
});
