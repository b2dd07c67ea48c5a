import { IMAGE_FIELD, imageRules } from '../lib/image-pipeline.ts';
import { REPORT_ID_PREFIX, REPORT_RENDERER_VERSION, reportTokenGrammar } from '../lib/report-markdown.ts';
import type { ReportRules } from '../revisions.ts';

/**
 * GET /api/report-format: the format contract of model reports, built from the constants
 * validation and rendering use (the profile's report rules, the token grammar), so what an
 * agent reads is what the server enforces. The examples with `html` are exact: the tests
 * render each one and compare.
 */

export interface ReportFormatExample {
  name: string;
  content: string;
  /** The exact HTML the content renders to. */
  html?: string;
  /** What it becomes, where the HTML depends on stored data (images, live cards). */
  renders?: string;
}

const LINK_REL = 'nofollow ugc noopener';

/** Worked examples: GFM features one by one, then the two report tokens. */
export const reportFormatExamples: readonly ReportFormatExample[] = [
  {
    name: 'Table with column alignment (classes, no inline styles)',
    content: '| quant | tok/s |\n|:--|--:|\n| Q4_K_M | 41.2 |',
    html:
      '<table>\n<thead>\n<tr>\n<th class="report-align-left">quant</th>\n<th class="report-align-right">tok/s</th>\n</tr>\n</thead>\n' +
      '<tbody>\n<tr>\n<td class="report-align-left">Q4_K_M</td>\n<td class="report-align-right">41.2</td>\n</tr>\n</tbody>\n</table>\n',
  },
  {
    name: 'Task list',
    content: '- [x] flash attention\n- [ ] speculative decoding',
    html:
      '<ul class="contains-task-list">\n' +
      '<li class="task-list-item"><label class="task-list-item-label"><input class="task-list-item-checkbox" type="checkbox" disabled checked> flash attention</label></li>\n' +
      '<li class="task-list-item"><label class="task-list-item-label"><input class="task-list-item-checkbox" type="checkbox" disabled> speculative decoding</label></li>\n' +
      '</ul>\n',
  },
  { name: 'Strikethrough', content: '~~70 tok/s~~ 64 tok/s', html: '<p><s>70 tok/s</s> 64 tok/s</p>\n' },
  {
    name: 'Autolink (bare URL)',
    content: 'See https://example.com/notes',
    html: `<p>See <a href="https://example.com/notes" rel="${LINK_REL}">https://example.com/notes</a></p>\n`,
  },
  {
    name: 'Nested list',
    content: '- GPU\n  - 24 GB\n- CPU',
    html: '<ul>\n<li>GPU\n<ul>\n<li>24 GB</li>\n</ul>\n</li>\n<li>CPU</li>\n</ul>\n',
  },
  { name: 'Horizontal rule', content: 'before\n\n---\n\nafter', html: '<p>before</p>\n<hr>\n<p>after</p>\n' },
  {
    name: 'Fenced code',
    content: '```sh\nllama-server -m model.gguf -fa\n```',
    html: '<pre><code class="language-sh">llama-server -m model.gguf -fa\n</code></pre>\n',
  },
  {
    name: 'Heading (prefixed id, for links and the table of contents)',
    content: '## Results on a 3090',
    html: `<h2 id="${REPORT_ID_PREFIX}results-on-a-3090">Results on a 3090</h2>\n`,
  },
  {
    name: 'Raw HTML is shown as text',
    content: '<b onclick="x()">bold?</b>',
    html: '<p>&lt;b onclick="x()"&gt;bold?&lt;/b&gt;</p>\n',
  },
  {
    name: 'An image from elsewhere is never loaded: it becomes a link',
    content: '![chart](https://example.com/chart.png)',
    html: `<p><a href="https://example.com/chart.png" rel="${LINK_REL}" class="report-external-image">chart</a></p>\n`,
  },
  {
    name: 'Uploaded image',
    content: '[[report-image:0b7f3c1e-2a4d-4e5f-8a9b-1c2d3e4f5a6b]]',
    renders:
      'Alone in its paragraph: <figure class="report-figure"> with <img width height loading="lazy"> of /api/marketplace/images/{id}/content, ' +
      "when the image is one the report's author uploaded; otherwise the token stays text. Inside a sentence: the <img> alone.",
  },
  {
    name: 'Embedded leaderboard',
    content: `[[report-embed:${encodeURIComponent('https://bench.example/?hfId=Qwen/Qwen3-30B-A3B&hwClass=DISCRETE_GPU')}]]`,
    renders:
      'Alone in its paragraph, an address of this service becomes a live card: a leaderboard address its top five with those filters, ' +
      '/runs/{id} the run (model, hardware, tok/s, verdict), /models/{org}/{model} best runs by hardware class and a bar chart, ' +
      '/hardware/{id} its best runs. Any other https address becomes a plain link card; never an iframe. Inside a sentence: a link.',
  },
  {
    name: 'Malformed token (broken percent-encoding)',
    content: '[[report-embed:https%3A%2F%2Fexample.com%E0%A4%A]]',
    html: '<p>[[report-embed:https%3A%2F%2Fexample.com%E0%A4%A]]</p>\n',
  },
];

export function reportFormat(rules: ReportRules) {
  return {
    contentFormat: rules.contentFormats[0],
    rendererVersion: REPORT_RENDERER_VERSION,
    features: {
      gfm: ['tables', 'task lists', 'strikethrough', 'autolinks', 'nested lists', 'horizontal rules', 'fenced code', 'footnotes'],
      rawHtml: 'shown as text, never rendered',
      headingIds: `every heading gets an id prefixed "${REPORT_ID_PREFIX}" (duplicates get -2, -3, ...)`,
      links: `http, https and mailto only; every link gets rel="${LINK_REL}"`,
      externalImages: 'never loaded: rendered as a link to the image',
    },
    tokens: {
      image: { syntax: reportTokenGrammar.image.syntax, idPattern: reportTokenGrammar.image.idPattern },
      embed: {
        syntax: reportTokenGrammar.embed.syntax,
        encodedUrlPattern: reportTokenGrammar.embed.urlPattern,
        encoding: 'encodeURIComponent of an absolute http(s) URL without credentials',
        ownPages: ['/runs/{id}', '/models/{org}/{model}', '/hardware/{id}', '/?<leaderboard filters>', '/api/leaderboard?<filters>'],
        bareAddress:
          "an address of this service alone in its paragraph, as pasted (no token), is an embed too: PUBLIC_URL's origin, and without PUBLIC_URL also http://localhost, 127.0.0.1 or [::1] at any port (the agent-context's base URL there); any other bare address stays a link",
      },
      malformed: 'a token that does not match its grammar is shown as the text it is',
      block: 'a token alone in its paragraph becomes a figure or card; inside a sentence an image stays inline and an embed becomes a link',
    },
    limits: {
      title: rules.title,
      summaryMax: rules.summaryMax,
      contentMax: rules.contentMax,
      tags: rules.tags,
      benchmarkRunIdsMax: rules.benchmarkRunsMax,
      evalRunIdsMax: rules.evalRunsMax,
      imagesMax: rules.imagesMax,
      embedsMax: rules.embedsMax,
    },
    attachedRuns:
      "benchmarkRunIds (speed-test runs) and evalRunIds (quality runs) must be APPROVED runs of the report's model or of its finetunes and quantizations; " +
      'a run rejected or withdrawn later disappears from the report.',
    images: {
      upload: `POST /api/reports/images, multipart/form-data with one file in field "${IMAGE_FIELD}" (Bearer key, or session + X-CSRF-Token)`,
      response: '201 { id, url, thumbnailUrl, contentType, width, height }',
      contentTypes: imageRules.contentTypes,
      maxBytes: imageRules.maxBytes,
      maxPixels: imageRules.maxPixels,
      thumbnailMaxWidth: imageRules.thumbMaxWidth,
      accepted: `${imageRules.contentTypes.join(', ')} (checked by content), at most ${imageRules.maxBytesLabel} and ${imageRules.maxPixelsLabel}; re-encoded without metadata`,
      use: 'put [[report-image:<id>]] in the content (and the id in imageIds); only your own uploads render',
    },
    lifecycle: {
      create: 'POST /api/models/{org}/{model}/reports -> 201 { report } (published false = a draft only you see)',
      update: 'PATCH /api/reports/{id} -> 200 { report }: any subset of the fields; published true publishes',
      read: 'GET /api/reports/{id} -> { report } (published, or your own draft)',
      list: 'GET /api/models/{org}/{model}/reports -> { reports, total, limit, offset } (published only)',
      delete: 'DELETE /api/reports/{id} -> 204 (author only)',
      moderation: 'an admin may unpublish a report with a reason; its author can still edit it but not publish it again (409)',
    },
    examples: reportFormatExamples,
  };
}
