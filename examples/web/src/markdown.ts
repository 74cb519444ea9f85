// Markdown for agent output, which is untrusted: raw HTML is shown as text, links and images keep
// only safe URL schemes, and the result is the only innerHTML the app ever sets.
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

/** Renders markdown to sanitised HTML. */
export function renderMarkdown(source: string): string {
  return marked.parse(source, { async: false });
}
