// A reply's markdown rendered in the page while it streams, the way the server renders the
// final text (chat/markdown.py): markdown-it (the JavaScript original of the server's
// markdown-it-py) with the same options and rules, then DOMPurify keeping the server's nh3
// allowlist. The final event's server HTML still replaces this rendering.
// Libraries: chat/static/chat/vendor/ (see its README), loaded as classic scripts first.

// Mirrors chat/markdown.py; a change there is a change here (tests/browser/test_streaming_markdown.py
// compares the two on the same texts).
const ALLOWED_TAGS = [
  "p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "strong", "em", "del", "s",
  "code", "pre", "blockquote", "ul", "ol", "li", "a",
  "table", "thead", "tbody", "tr", "th", "td",
];
const ALLOWED_ATTRIBUTES = {
  a: ["href", "title"],
  code: ["class"],
  ol: ["start"],
  th: ["style"],
  td: ["style"],
};
// http, https and mailto, or a relative address (nh3 lets those through too).
const SAFE_URL = /^(?:(?:https?|mailto):|[^a-z]|[a-z+.-]+(?:[^a-z+.\-:]|$))/i;
const CURRENCY_SPACE = /(?<![\p{L}\p{N}_$])((?:R|US|A|C|NZ|HK)?\$|€|£) (?=[0-9])/gu;
const CODE_BLOCK = /(<pre>[\s\S]*?<\/pre>)/;

let parser = null;
let purifier = null;

function tools() {
  if (parser) return { parser, purifier };
  parser = window.markdownit("commonmark", { html: false, linkify: true, typographer: false, breaks: true })
    .enable(["table", "strikethrough", "linkify"])
    .disable("image");
  purifier = window.DOMPurify(window); // an instance of its own: the hooks below are this page's rules
  const allAttributes = [...new Set(Object.values(ALLOWED_ATTRIBUTES).flat())];
  purifier.setConfig({
    ALLOWED_TAGS,
    ALLOWED_ATTR: allAttributes,
    ALLOWED_URI_REGEXP: SAFE_URL,
    ALLOW_DATA_ATTR: false,
    ALLOW_ARIA_ATTR: false,
  });
  purifier.addHook("uponSanitizeAttribute", (node, data) => {
    const tag = node.nodeName.toLowerCase();
    const name = data.attrName;
    if (!(ALLOWED_ATTRIBUTES[tag] || []).includes(name)) data.keepAttr = false;
    // A code block's language class only (for the copy button), as the server keeps it.
    else if (name === "class") data.keepAttr = data.attrValue.startsWith("language-") && !data.attrValue.includes(" ");
    // Table alignment is the only style markdown-it writes.
    else if (name === "style") {
      const align = /^\s*text-align\s*:\s*(left|right|center)\s*;?\s*$/i.exec(data.attrValue);
      if (align) data.attrValue = `text-align:${align[1].toLowerCase()}`;
      else data.keepAttr = false;
    }
  });
  purifier.addHook("afterSanitizeAttributes", (node) => {
    if (node.nodeName === "A") {
      node.setAttribute("rel", "noopener noreferrer");
      node.setAttribute("target", "_blank");
    }
  });
  return { parser, purifier };
}

// Headings under the page's own, in the order of depth the reply uses (as _nest_headings).
function nestHeadings(tokens) {
  const levels = [...new Set(tokens.filter((t) => t.type === "heading_open").map((t) => Number(t.tag[1])))].sort();
  const rank = new Map(levels.map((level, index) => [level, `h${Math.min(6, 2 + index)}`]));
  for (const token of tokens) {
    if (token.type === "heading_open" || token.type === "heading_close") token.tag = rank.get(Number(token.tag[1]));
  }
}

// The fence a text leaves open at its end, if any ("```", "~~~~"): while a reply streams,
// its code block is shown closed so far rather than taking the rest of the page with it
// when the closing fence is a delta away.
export function openFence(text) {
  let open = null;
  for (const line of text.split("\n")) {
    const fence = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line);
    if (!fence) continue;
    const [, marks, rest] = fence;
    if (open === null) {
      if (!(marks[0] === "`" && rest.includes("`"))) open = marks;
    } else if (marks[0] === open[0] && marks.length >= open.length && !rest.trim()) {
      open = null;
    }
  }
  return open;
}

// The tokens of each top-level block (a paragraph, a list, a table, a code block…).
function topLevelBlocks(tokens) {
  const blocks = [];
  let start = 0;
  tokens.forEach((token, index) => {
    if (token.level === 0 && token.nesting <= 0) { // a block's closing token, or a block of one token
      blocks.push(tokens.slice(start, index + 1));
      start = index + 1;
    }
  });
  return blocks;
}

// Sanitizing is the costly step (markdown-it parses 20 KB in a few ms; DOMPurify takes ten
// times as long): each block is sanitized once, and while a reply streams only its last,
// growing block is new. Keyed by the block's HTML, so a block rendered differently (a heading
// renumbered by a later one) is sanitized again.
const sanitized = new Map();
const SANITIZED_KEPT = 500;

function sanitizeBlock(clean, html) {
  let safe = sanitized.get(html);
  if (safe === undefined) {
    if (sanitized.size >= SANITIZED_KEPT) sanitized.clear();
    safe = clean.sanitize(html);
    sanitized.set(html, safe);
  }
  return safe;
}

// The markdown as sanitized HTML. ``partial``: the text is still arriving.
export function renderMarkdown(text, { partial = false } = {}) {
  if (!text.trim()) return "";
  const { parser: md, purifier: clean } = tools();
  const fence = partial ? openFence(text) : null;
  const source = fence ? `${text}\n${fence}` : text;
  const tokens = md.parse(source, {});
  nestHeadings(tokens);
  const html = topLevelBlocks(tokens)
    .map((block) => sanitizeBlock(clean, md.renderer.render(block, md.options, {})))
    .join("")
    .trim();
  // Not inside code blocks: their copy button must copy the plain space.
  return html.split(CODE_BLOCK).map((part, index) => (index % 2 ? part : part.replace(CURRENCY_SPACE, "$1\u00a0"))).join("");
}

// Show ``text`` in ``container`` as it streams, without flicker: only the blocks that
// changed since the last call are replaced, so finished paragraphs (and a selection in
// them) stay as they are while the last one grows.
export function renderInto(container, text) {
  const next = document.createElement("div");
  next.innerHTML = renderMarkdown(text, { partial: true }); // sanitized above
  const fresh = [...next.childNodes];
  const old = [...container.childNodes];
  fresh.forEach((node, index) => {
    const current = old[index];
    if (!current) container.append(node);
    else if (!current.isEqualNode(node)) current.replaceWith(node);
  });
  for (const extra of old.slice(fresh.length)) extra.remove();
}
