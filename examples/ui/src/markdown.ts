// Markdown for agent output, which is untrusted input. Two layers: the renderer shows raw HTML as
// text, keeps only safe link schemes and drops images (`markdownHtml`, pure, so Node can check it);
// DOMPurify then cleans what the renderer made before it becomes the only innerHTML the app sets
// (`renderMarkdown`, in the browser), so a renderer bug still cannot run a script.
import DOMPurify from "dompurify";
import { Marked, type Tokens } from "marked";

const SAFE_URL = /^(https?:|mailto:|#|\/(?!\/))/i;

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

const marked = new Marked({
  gfm: true,
  breaks: false,
  async: false,
  renderer: {
    html: ({ text }: Tokens.HTML | Tokens.Tag) => escapeHtml(text),
    link({ href, title, tokens }: Tokens.Link) {
      const label = this.parser.parseInline(tokens);
      if (!SAFE_URL.test(href.trim())) return label;
      const titleAttr = title ? ` title="${escapeHtml(title)}"` : "";
      return `<a href="${escapeHtml(href)}"${titleAttr} target="_blank" rel="noopener noreferrer">${label}</a>`;
    },
    // No remote images from agent text: they would load without the user asking.
    image: ({ text }: Tokens.Image) => escapeHtml(text),
  },
});

/** Markdown to HTML with raw HTML escaped, unsafe links unlinked and images dropped. */
export function markdownHtml(source: string): string {
  return marked.parse(source, { async: false });
}

const PURIFY = {
  FORBID_TAGS: ["style", "form", "input", "button", "textarea", "select", "iframe", "img", "svg", "math"],
  ALLOWED_URI_REGEXP: SAFE_URL,
  ADD_ATTR: ["target"],
};

/** Markdown to HTML safe to put in the page: `markdownHtml`, then DOMPurify. */
export function renderMarkdown(source: string): string {
  return DOMPurify.sanitize(markdownHtml(source), PURIFY);
}
