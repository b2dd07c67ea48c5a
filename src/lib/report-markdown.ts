import MarkdownIt from 'markdown-it';
import type { StateCore, StateInline, Token } from 'markdown-it';
import footnote from 'markdown-it-footnote';
import sanitizeHtml from 'sanitize-html';
import { randomBytes } from 'node:crypto';

/**
 * Model reports in GitHub Flavored Markdown: parsing, the two report tokens and the HTML.
 * Pure: what the tokens point at (images, live cards) is resolved by the caller between
 * `parseReport` and `renderReport`, so the service reads the database once per report.
 *
 * Two walls: markdown-it never emits raw HTML (`html: false`) and refuses dangerous link
 * schemes; its output then goes through sanitize-html with an allow-list of what this
 * renderer produces. Cards (server-rendered, from our own templates) are spliced in after
 * sanitising, at placeholders the author cannot forge (a random nonce per render).
 */

/** Bump when the HTML for the same content changes: cached HTML of another version is rebuilt. */
export const REPORT_RENDERER_VERSION = 1;

/** Prefix of every id in rendered content, so headings cannot clobber globals or page ids. */
export const REPORT_ID_PREFIX = 'report-';

/** `[[report-image:<id>]]` and `[[report-embed:<percent-encoded-absolute-url>]]`. */
export const reportTokenGrammar = {
  image: {
    syntax: '[[report-image:<image-id>]]',
    idPattern: '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}',
  },
  embed: { syntax: '[[report-embed:<percent-encoded-absolute-url>]]', urlPattern: "[A-Za-z0-9%._~!*'()-]{1,2048}" },
} as const;

const IMAGE_ID = new RegExp(`^${reportTokenGrammar.image.idPattern}$`);
const ENCODED_URL = new RegExp(`^${reportTokenGrammar.embed.urlPattern}$`);
const TOKEN_OPEN = '[[report-';
const TOKEN_CLOSE = ']]';
/** The longest token the inline rule looks at (an embed of the longest URL). */
const TOKEN_MAX = TOKEN_OPEN.length + 'embed:'.length + 2048 + TOKEN_CLOSE.length;

/** An embed token's target: an absolute http(s) URL, decoded and parsed. */
export type ReportEmbedTarget = URL;

/** Decodes an embed token's argument: the absolute http(s) URL, or null for anything else. */
export function decodeEmbedUrl(encoded: string): ReportEmbedTarget | null {
  if (!ENCODED_URL.test(encoded)) return null;
  let decoded: string;
  try {
    decoded = decodeURIComponent(encoded);
  } catch {
    return null;
  }
  if (!URL.canParse(decoded)) return null;
  const url = new URL(decoded);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  if (url.username || url.password) return null;
  return url;
}

/** An uploaded image as a report shows it. */
export interface ReportImage {
  id: string;
  /** Same-origin paths of the image and its thumbnail. */
  url: string;
  thumbnailUrl: string;
  width: number;
  height: number;
  alt: string;
}

export interface ReportHeading {
  level: number;
  id: string;
  text: string;
}

export interface ParsedReport {
  tokens: Token[];
  env: Record<string, unknown>;
  /** Distinct image ids of well-formed image tokens, in order of appearance. */
  imageIds: string[];
  /** Distinct embed URLs (normalised `href`) of well-formed embed tokens, in order. */
  embedUrls: string[];
  headings: ReportHeading[];
}

export interface ReportResolutions {
  /** The author's own images by id; a token naming any other id stays text. */
  images: ReadonlyMap<string, ReportImage>;
  /** Trusted card HTML by embed URL (from our own templates); a URL without one stays a plain link. */
  cards: ReadonlyMap<string, string>;
}

function reportTokenRule(state: StateInline, silent: boolean): boolean {
  const start = state.pos;
  if (state.src.charCodeAt(start) !== 0x5b /* [ */ || !state.src.startsWith(TOKEN_OPEN, start)) return false;
  const end = state.src.indexOf(TOKEN_CLOSE, start + TOKEN_OPEN.length);
  if (end < 0 || end - start > TOKEN_MAX) return false;
  const body = state.src.slice(start + TOKEN_OPEN.length, end);
  const colon = body.indexOf(':');
  const kind = body.slice(0, colon);
  const argument = body.slice(colon + 1);
  let meta: { kind: 'image'; id: string } | { kind: 'embed'; url: string } | undefined;
  if (colon > 0 && kind === 'image' && IMAGE_ID.test(argument)) meta = { kind: 'image', id: argument.toLowerCase() };
  if (colon > 0 && kind === 'embed') {
    const url = decodeEmbedUrl(argument);
    if (url) meta = { kind: 'embed', url: url.href };
  }
  // A malformed token is left to the other rules: it reads as the text it is.
  if (!meta) return false;
  if (!silent) {
    const token = state.push(`report_${meta.kind}`, '', 0);
    token.meta = meta;
    token.content = state.src.slice(start, end + TOKEN_CLOSE.length);
  }
  state.pos = end + TOKEN_CLOSE.length;
  return true;
}

/** Lowercase words joined by dashes (letters and digits of any script), for heading ids. */
function slug(text: string): string {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return words.join('-').slice(0, 80) || 'section';
}

function inlineText(token: Token): string {
  return (token.children ?? []).map((child) => (child.type === 'text' || child.type === 'code_inline' ? child.content : '')).join('');
}

/** Heading ids (prefixed, unique) and the outline for the table of contents. */
function headingIdsRule(state: StateCore): void {
  const seen = new Map<string, number>();
  const headings: ReportHeading[] = [];
  state.tokens.forEach((token, index) => {
    if (token.type !== 'heading_open') return;
    const text = inlineText(state.tokens[index + 1]!);
    const base = REPORT_ID_PREFIX + slug(text);
    const count = (seen.get(base) ?? 0) + 1;
    seen.set(base, count);
    const id = count === 1 ? base : `${base}-${count}`;
    token.attrSet('id', id);
    headings.push({ level: Number(token.tag.slice(1)), id, text });
  });
  state.env.headings = headings;
}

/** Table alignment as classes: the CSP allows no inline styles. */
function alignmentClassRule(state: StateCore): void {
  for (const token of state.tokens) {
    if (token.type !== 'th_open' && token.type !== 'td_open') continue;
    const style = token.attrGet('style');
    const align = style ? /^text-align:(left|center|right)$/.exec(String(style))?.[1] : undefined;
    if (!style) continue;
    token.attrs = (token.attrs ?? []).filter(([name]) => name !== 'style');
    if (align) token.attrJoin('class', `report-align-${align}`);
  }
}

const TASK_MARKER = /^\[([ xX])\][ \t]/;

/**
 * GFM task lists: a list item whose paragraph starts with `[ ] ` or `[x] ` gets a disabled
 * checkbox inside a label with the item's text (the label names the checkbox, no ids needed).
 * (The published task-list plugin imports a path markdown-it 15 no longer exports.)
 */
function taskListRule(state: StateCore): void {
  const tokens = state.tokens;
  for (let i = 2; i < tokens.length; i++) {
    const inline = tokens[i]!;
    if (inline.type !== 'inline' || tokens[i - 1]!.type !== 'paragraph_open' || tokens[i - 2]!.type !== 'list_item_open') continue;
    const first = inline.children?.[0];
    const marker = first?.type === 'text' ? TASK_MARKER.exec(first.content) : null;
    if (!first || !marker) continue;
    first.content = first.content.slice(marker[0].length);
    const checkbox = new state.Token('report_task_checkbox', 'input', 0);
    checkbox.meta = { checked: marker[1] !== ' ' };
    inline.children!.unshift(new state.Token('report_task_label_open', 'label', 1), checkbox);
    inline.children!.push(new state.Token('report_task_label_close', 'label', -1));
    tokens[i - 2]!.attrJoin('class', 'task-list-item');
    for (let j = i - 3; j >= 0; j--) {
      if (
        tokens[j]!.level === tokens[i - 2]!.level - 1 &&
        (tokens[j]!.type === 'bullet_list_open' || tokens[j]!.type === 'ordered_list_open')
      ) {
        if (!String(tokens[j]!.attrGet('class') ?? '').includes('contains-task-list')) tokens[j]!.attrJoin('class', 'contains-task-list');
        break;
      }
    }
  }
}

/** Each paragraph's inline token, its children that show something (blank text and soft breaks left out) and its paragraph tags. */
function* paragraphContents(state: StateCore): Generator<{ inline: Token; meaningful: Token[]; open: Token; close: Token }> {
  const tokens = state.tokens;
  for (let i = 1; i < tokens.length - 1; i++) {
    const inline = tokens[i]!;
    if (inline.type !== 'inline' || tokens[i - 1]!.type !== 'paragraph_open') continue;
    const meaningful = (inline.children ?? []).filter(
      (child) => !(child.type === 'text' && child.content.trim() === '') && child.type !== 'softbreak',
    );
    yield { inline, meaningful, open: tokens[i - 1]!, close: tokens[i + 1]! };
  }
}

/**
 * A bare address of this service alone in its paragraph (pasted from the address bar; the
 * parser's option says which are ours) is an embed, as its `[[report-embed:...]]` token is.
 * Any other bare address stays a link.
 */
function bareEmbedRule(state: StateCore): void {
  const isOwnUrl = (state.env as { isOwnUrl?: (url: URL) => boolean }).isOwnUrl;
  if (!isOwnUrl) return;
  for (const { inline, meaningful } of paragraphContents(state)) {
    const [open, text, close] = meaningful;
    if (meaningful.length !== 3 || open!.type !== 'link_open' || text!.type !== 'text' || close!.type !== 'link_close') continue;
    if (open!.markup !== 'linkify' && open!.markup !== 'autolink') continue;
    const url = decodeEmbedUrl(encodeURIComponent(String(open!.attrGet('href') ?? '')));
    if (!url || !isOwnUrl(url)) continue;
    const embed = new state.Token('report_embed', '', 0);
    embed.meta = { kind: 'embed', url: url.href };
    embed.content = text!.content;
    inline.children = [embed];
  }
}

/** A token alone in its paragraph is a block (figure, card): the paragraph's tags are dropped around it. */
function standaloneTokenRule(state: StateCore): void {
  for (const { meaningful, open, close } of paragraphContents(state)) {
    if (meaningful.length !== 1 || !meaningful[0]!.type.startsWith('report_') || meaningful[0]!.type.startsWith('report_task')) continue;
    meaningful[0]!.block = true;
    open.hidden = true;
    close.hidden = true;
  }
}

const LINK_REL = 'nofollow ugc noopener';

/** A standalone token (its paragraph's tags dropped) that stays inline content gets its paragraph back. */
const asParagraph = (token: Token, html: string) => (token.block ? `<p>${html}</p>` : html);

function createMarkdown() {
  const md = new MarkdownIt('default', { html: false, linkify: true, typographer: false });
  // Autolinks need a scheme (https://...): fuzzy links would also link pieces of tokens and file names.
  md.linkify.set({ fuzzyLink: false, fuzzyEmail: false });
  md.use(footnote);
  md.inline.ruler.before('link', 'report_token', reportTokenRule);
  md.core.ruler.after('inline', 'report_task_lists', taskListRule);
  md.core.ruler.after('report_task_lists', 'report_heading_ids', headingIdsRule);
  md.core.ruler.after('report_heading_ids', 'report_alignment', alignmentClassRule);
  md.core.ruler.after('report_alignment', 'report_bare_embeds', bareEmbedRule);
  md.core.ruler.after('report_bare_embeds', 'report_standalone_tokens', standaloneTokenRule);

  const rules = md.renderer.rules;
  const escapeHtml = md.utils.escapeHtml;
  const renderToken = md.renderer.renderToken.bind(md.renderer);
  rules.link_open = (tokens, idx, options) => {
    tokens[idx]!.attrSet('rel', LINK_REL);
    return renderToken(tokens, idx, options);
  };
  // External images are never loaded: the reader gets a link to them instead.
  rules.image = (tokens, idx) => {
    const token = tokens[idx]!;
    const alt = inlineText(token) || 'image';
    return `<a href="${escapeHtml(String(token.attrGet('src') ?? ''))}" rel="${LINK_REL}" class="report-external-image">${escapeHtml(alt)}</a>`;
  };
  rules.report_task_label_open = () => '<label class="task-list-item-label">';
  rules.report_task_label_close = () => '</label>';
  rules.report_task_checkbox = (tokens, idx) =>
    `<input class="task-list-item-checkbox" type="checkbox" disabled${tokens[idx]!.meta?.checked ? ' checked' : ''}> `;
  rules.report_image = (tokens, idx, _options, env) => {
    const token = tokens[idx]!;
    const image = (env as unknown as RenderEnv).resolutions.images.get(String(token.meta?.id));
    if (!image) return asParagraph(token, escapeHtml(token.content));
    const img = `<img src="${escapeHtml(image.url)}" alt="${escapeHtml(image.alt)}" width="${image.width}" height="${image.height}" loading="lazy" decoding="async" class="report-image">`;
    return token.block ? `<figure class="report-figure"><a href="${escapeHtml(image.url)}">${img}</a></figure>` : img;
  };
  rules.report_embed = (tokens, idx, _options, env) => {
    const token = tokens[idx]!;
    const { resolutions, nonce, cards } = env as unknown as RenderEnv;
    const url = String(token.meta?.url);
    const card = resolutions.cards.get(url);
    if (card && token.block) {
      cards.push(card);
      return `<div data-report-card="${nonce}-${cards.length - 1}"></div>`;
    }
    // Inside a sentence, or a URL without a card: a plain link.
    return asParagraph(token, `<a href="${escapeHtml(url)}" rel="${LINK_REL}" class="report-embed-link">${escapeHtml(url)}</a>`);
  };
  return md;
}

interface RenderEnv {
  resolutions: ReportResolutions;
  nonce: string;
  cards: string[];
  docId: string;
}

const markdown = createMarkdown();

/**
 * Parses a report's content: its tokens and what its report tokens point at. With
 * `isOwnUrl`, a bare address of this service alone in its paragraph is an embed too.
 */
export function parseReport(content: string, options: { isOwnUrl?: (url: URL) => boolean } = {}): ParsedReport {
  const env: Record<string, unknown> = { docId: 'report', isOwnUrl: options.isOwnUrl };
  const tokens = markdown.parse(content, env);
  const imageIds = new Set<string>();
  const embedUrls = new Set<string>();
  for (const token of tokens) {
    for (const child of token.children ?? []) {
      if (child.type === 'report_image') imageIds.add(String(child.meta?.id));
      if (child.type === 'report_embed') embedUrls.add(String(child.meta?.url));
    }
  }
  return { tokens, env, imageIds: [...imageIds], embedUrls: [...embedUrls], headings: (env.headings as ReportHeading[]) ?? [] };
}

const SAFE_HREF = /^(https?:|mailto:|#|\/(?!\/))/i;
const HEADING_TAGS = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'];
const ALLOWED_ID = /^(report-[\p{L}\p{N}-]+|fn(ref)?-report-\d+(:\d+)?)$/u;

/** Keeps an element's id only when it is one of ours (prefixed), so content cannot clobber page ids. */
const prefixedIdOnly: sanitizeHtml.Transformer = (tagName, attribs) => {
  const { id, ...rest } = attribs;
  return { tagName, attribs: id && ALLOWED_ID.test(id) ? { ...rest, id } : rest };
};

/** The second wall: exactly what this renderer produces, nothing else. */
const sanitizeOptions: sanitizeHtml.IOptions = {
  allowedTags: [
    ...HEADING_TAGS,
    'p',
    'br',
    'hr',
    'a',
    'em',
    'strong',
    's',
    'code',
    'pre',
    'blockquote',
    'ul',
    'ol',
    'li',
    'table',
    'thead',
    'tbody',
    'tr',
    'th',
    'td',
    'input',
    'label',
    'section',
    'sup',
    'figure',
    'img',
    'div',
  ],
  allowedAttributes: {
    ...Object.fromEntries(HEADING_TAGS.map((tag) => [tag, ['id']])),
    a: ['href', 'rel', 'id', 'class'],
    li: ['id', 'class'],
    ol: ['start', 'class'],
    ul: ['class'],
    input: [{ name: 'type', multiple: false, values: ['checkbox'] }, 'checked', 'disabled', 'class'],
    label: ['class'],
    th: ['class'],
    td: ['class'],
    code: ['class'],
    img: ['src', 'alt', 'width', 'height', 'loading', 'decoding', 'class'],
    figure: ['class'],
    div: ['data-report-card'],
    section: ['class'],
    sup: ['class'],
    hr: ['class'],
  },
  allowedClasses: {
    code: ['language-*'],
    th: ['report-align-*'],
    td: ['report-align-*'],
    a: ['footnote-backref', 'report-external-image', 'report-embed-link'],
    li: ['task-list-item', 'footnote-item'],
    ul: ['contains-task-list'],
    ol: ['contains-task-list', 'footnotes-list'],
    input: ['task-list-item-checkbox'],
    label: ['task-list-item-label'],
    img: ['report-image'],
    figure: ['report-figure'],
    section: ['footnotes'],
    sup: ['footnote-ref'],
    hr: ['footnotes-sep'],
  },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesAppliedToAttributes: ['href', 'src'],
  allowProtocolRelative: false,
  disallowedTagsMode: 'escape',
  transformTags: {
    ...Object.fromEntries(HEADING_TAGS.map((tag) => [tag, prefixedIdOnly])),
    li: prefixedIdOnly,
    a: (tagName, attribs) => {
      const { href, ...rest } = prefixedIdOnly(tagName, attribs).attribs;
      // Absolute http(s) and mailto, this page's fragments and this service's paths; nothing relative to guess about.
      return { tagName, attribs: { ...(href !== undefined && SAFE_HREF.test(href) ? { href } : {}), ...rest, rel: LINK_REL } };
    },
  },
  // Only our own uploaded images, by their same-origin path; never an address from the content.
  exclusiveFilter: (frame) =>
    frame.tag === 'img' && !/^\/api\/marketplace\/images\/[A-Za-z0-9_-]+\/content(\?variant=thumb)?$/.test(frame.attribs.src ?? ''),
};

/** Sanitises HTML built from author text. Void elements come out as HTML (`<hr>`), not XHTML (`<hr />`). */
export function sanitizeReportHtml(html: string): string {
  // The sanitiser's output escapes < and > inside attribute values, so this only meets real tag ends.
  return sanitizeHtml(html, sanitizeOptions).replace(/<(img|br|hr|input)\b([^<>]*?) \/>/g, '<$1$2>');
}

/** The report's HTML: markdown with the tokens resolved, sanitised, then the live cards spliced in. */
export function renderReport(parsed: ParsedReport, resolutions: ReportResolutions): string {
  const env: RenderEnv = { ...(parsed.env as { docId: string }), resolutions, nonce: randomBytes(12).toString('hex'), cards: [] };
  const html = sanitizeReportHtml(markdown.renderer.render(parsed.tokens, markdown.options, env as unknown as Record<string, unknown>));
  return html.replace(
    new RegExp(`<div data-report-card="${env.nonce}-(\\d+)"></div>`, 'g'),
    (_match, index: string) => env.cards[Number(index)]!,
  );
}

/** Renders content with no images and no cards (tokens as text or links): the shape of an unresolved report. */
export function renderReportText(content: string): string {
  return renderReport(parseReport(content), { images: new Map(), cards: new Map() });
}
