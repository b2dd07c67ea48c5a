import { expect } from 'chai';
import { decodeEmbedUrl, parseReport, renderReport, renderReportText, type ReportImage } from '../../src/lib/report-markdown.ts';
import { reportFormatExamples } from '../../src/openapi/report-format.ts';
import { activeHtmlProblems, reportXssCorpus, reportXssDocument } from '../fixtures/report-xss-corpus.ts';

const IMAGE_ID = '0b7f3c1e-2a4d-4e5f-8a9b-1c2d3e4f5a6b';
const image: ReportImage = {
  id: IMAGE_ID,
  url: `/api/marketplace/images/${IMAGE_ID}/content`,
  thumbnailUrl: `/api/marketplace/images/${IMAGE_ID}/content?variant=thumb`,
  width: 640,
  height: 480,
  alt: 'A chart',
};
const CARD = '<div class="report-card">live card</div>';
const EMBED_URL = 'https://bench.example/runs/1';
const embedToken = (url: string) => `[[report-embed:${encodeURIComponent(url)}]]`;

function render(content: string) {
  return renderReport(parseReport(content), { images: new Map([[IMAGE_ID, image]]), cards: new Map([[EMBED_URL, CARD]]) });
}

describe('Report markdown: GitHub Flavored Markdown, feature by feature', () => {
  for (const example of reportFormatExamples.filter((e) => e.html !== undefined)) {
    it(`renders the format contract's example: ${example.name}`, () => {
      expect(renderReportText(example.content)).to.equal(example.html);
    });
  }

  const cases: [string, string, string][] = [
    ['emphasis and strong', '*a* **b**', '<p><em>a</em> <strong>b</strong></p>\n'],
    [
      'autolink in angle brackets',
      '<https://example.com>',
      '<p><a href="https://example.com" rel="nofollow ugc noopener">https://example.com</a></p>\n',
    ],
    ['no fuzzy links: a bare domain stays text', 'see example.com', '<p>see example.com</p>\n'],
    ['ordered list with a start', '3. three\n4. four', '<ol start="3">\n<li>three</li>\n<li>four</li>\n</ol>\n'],
    ['blockquote', '> quoted', '<blockquote>\n<p>quoted</p>\n</blockquote>\n'],
    ['inline code escapes markup', '`<b>`', '<p><code>&lt;b&gt;</code></p>\n'],
    ['mailto link', '[mail](mailto:a@example.com)', '<p><a href="mailto:a@example.com" rel="nofollow ugc noopener">mail</a></p>\n'],
    ['duplicate headings get numbered ids', '# Setup\n# Setup', '<h1 id="report-setup">Setup</h1>\n<h1 id="report-setup-2">Setup</h1>\n'],
    ['heading ids keep letters of any script', '## Über 3090 — 速度', '<h2 id="report-über-3090-速度">Über 3090 — 速度</h2>\n'],
    [
      'nested task list',
      '- [ ] outer\n  - [x] inner',
      '<ul class="contains-task-list">\n<li class="task-list-item"><label class="task-list-item-label"><input class="task-list-item-checkbox" type="checkbox" disabled> outer</label>\n<ul class="contains-task-list">\n<li class="task-list-item"><label class="task-list-item-label"><input class="task-list-item-checkbox" type="checkbox" disabled checked> inner</label></li>\n</ul>\n</li>\n</ul>\n',
    ],
    ['a bracket that is not a task stays text', '- [y] maybe', '<ul>\n<li>[y] maybe</li>\n</ul>\n'],
    ['a link to a heading', '[see](#report-setup)', '<p><a href="#report-setup" rel="nofollow ugc noopener">see</a></p>\n'],
    [
      'footnotes with prefixed ids',
      'Fast[^1].\n\n[^1]: Measured twice.',
      '<p>Fast<sup class="footnote-ref"><a href="#fn-report-1" id="fnref-report-1" rel="nofollow ugc noopener">[1]</a></sup>.</p>\n<hr class="footnotes-sep">\n<section class="footnotes">\n<ol class="footnotes-list">\n<li class="footnote-item" id="fn-report-1"><p>Measured twice. <a href="#fnref-report-1" class="footnote-backref" rel="nofollow ugc noopener">\u21a9\uFE0E</a></p>\n</li>\n</ol>\n</section>\n',
    ],
  ];
  for (const [name, content, html] of cases) {
    it(name, () => expect(renderReportText(content)).to.equal(html));
  }

  it('lists the headings for the table of contents', () => {
    expect(parseReport('# One\n\ntext\n\n## Two `code`').headings).to.deep.equal([
      { level: 1, id: 'report-one', text: 'One' },
      { level: 2, id: 'report-two-code', text: 'Two code' },
    ]);
  });
});

describe('Report markdown: the report tokens', () => {
  it('an image token alone in its paragraph becomes a lazy figure with the size', () => {
    expect(render(`[[report-image:${IMAGE_ID}]]`)).to.equal(
      `<figure class="report-figure"><a href="${image.url}" rel="nofollow ugc noopener"><img src="${image.url}" alt="A chart" width="640" height="480" loading="lazy" decoding="async" class="report-image"></a></figure>`,
    );
  });

  it('an image token inside a sentence stays an inline image', () => {
    expect(render(`see [[report-image:${IMAGE_ID.toUpperCase()}]] here`)).to.equal(
      `<p>see <img src="${image.url}" alt="A chart" width="640" height="480" loading="lazy" decoding="async" class="report-image"> here</p>\n`,
    );
  });

  it("an image token naming an image that is not the author's stays text", () => {
    expect(render('[[report-image:11111111-2222-4333-8444-555555555555]]')).to.equal(
      '<p>[[report-image:11111111-2222-4333-8444-555555555555]]</p>',
    );
  });

  it('a bare address of this service alone in its paragraph is an embed; others, and one in a sentence, stay links', () => {
    const isOwnUrl = (url: URL) => url.origin === 'http://127.0.0.1:3000';
    const run = 'http://127.0.0.1:3000/runs/0f6e2b36-2d6a-4f3c-9a55-4c1e4b1c2d3e';
    const parsed = parseReport(`${run}\n\n<${run}?x=1>\n\nsee ${run} here\n\nhttps://example.org/runs/1\n`, { isOwnUrl });
    expect(parsed.embedUrls).to.deep.equal([run, `${run}?x=1`]);
    // Without the option (what the format's examples and unresolved text use), nothing changes.
    expect(parseReport(`${run}\n`).embedUrls).to.deep.equal([]);
  });

  it('an embed token alone in its paragraph becomes its card', () => {
    expect(render(`before\n\n${embedToken(EMBED_URL)}\n\nafter`)).to.equal(`<p>before</p>\n${CARD}\n<p>after</p>\n`);
  });

  it('an embed token inside a sentence, or without a card, becomes a plain link', () => {
    expect(render(`see ${embedToken(EMBED_URL)}`)).to.equal(
      `<p>see <a href="${EMBED_URL}" rel="nofollow ugc noopener" class="report-embed-link">${EMBED_URL}</a></p>\n`,
    );
    expect(render(embedToken('https://other.example/x'))).to.equal(
      '<p><a href="https://other.example/x" rel="nofollow ugc noopener" class="report-embed-link">https://other.example/x</a></p>',
    );
  });

  it('lists the distinct image ids and embed addresses of well-formed tokens', () => {
    const parsed = parseReport(
      `[[report-image:${IMAGE_ID}]] [[report-image:${IMAGE_ID}]] ${embedToken(EMBED_URL)} [[report-image:nope]] [[report-embed:%E0%A4%A]]`,
    );
    expect(parsed.imageIds).to.deep.equal([IMAGE_ID]);
    expect(parsed.embedUrls).to.deep.equal([EMBED_URL]);
  });

  const malformed = [
    '[[report-image:]]',
    '[[report-image:not-a-uuid]]',
    '[[report-image:0b7f3c1e-2a4d-4e5f-8a9b-1c2d3e4f5a6b',
    '[[report-embed:]]',
    '[[report-embed:https%3A%2F%2Fexample.com%E0%A4%A]]',
    '[[report-embed:%2Frelative%2Fpath]]',
    '[[report-embed:ftp%3A%2F%2Fexample.com%2Ff]]',
    '[[report-embed:https%3A%2F%2Fuser%3Apass%40example.com]]',
    '[[report-embed:https://not-encoded.example/]]',
    '[[report-chart:x]]',
    '[[REPORT-IMAGE:0b7f3c1e-2a4d-4e5f-8a9b-1c2d3e4f5a6b]]',
  ];
  for (const token of malformed) {
    it(`leaves a malformed token as its text: ${token}`, () => {
      const parsed = parseReport(token);
      expect(parsed.imageIds).to.deep.equal([]);
      expect(parsed.embedUrls).to.deep.equal([]);
      const text = render(token);
      expect(text).to.not.match(/<(img|figure|div)/);
      expect(text).to.contain('[[');
    });
  }

  it('decodes only absolute http(s) URLs without credentials', () => {
    expect(decodeEmbedUrl(encodeURIComponent('https://bench.example/?hfId=a%2Fb&x=1'))?.href).to.equal(
      'https://bench.example/?hfId=a%2Fb&x=1',
    );
    expect(decodeEmbedUrl(encodeURIComponent('javascript:alert(1)'))).to.equal(null);
    expect(decodeEmbedUrl('%E0%A4%A')).to.equal(null);
  });

  it('never lets content forge the placeholder of a card', () => {
    const html = render('<div data-report-card="0-0"></div>\n\n[[report-embed:https%3A%2F%2Fbench.example%2Fruns%2F1]]');
    expect(html.match(/live card/g)).to.have.length(1);
    expect(html).to.contain('&lt;div data-report-card');
  });
});

describe('Report markdown: the XSS corpus renders inert', () => {
  for (const input of reportXssCorpus) {
    it(JSON.stringify(input).slice(0, 90), () => {
      const html = render(input);
      expect(activeHtmlProblems(html), html).to.deep.equal([]);
    });
  }

  it('the whole corpus as one document', () => {
    expect(activeHtmlProblems(render(reportXssDocument))).to.deep.equal([]);
  });

  it('the checker finds what it looks for (it is not vacuous)', () => {
    expect(
      activeHtmlProblems('<img src=x onerror=alert(1)><a href="javascript:x">y</a><script></script><h2 id="location">z</h2>'),
    ).to.have.length.at.least(4);
  });
});
