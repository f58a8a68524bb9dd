/** Escapes text for HTML element content and double- or single-quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!);
}

/** Security headers of every hosted page: no scripts at all, forms only to this origin, no framing. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

/** A whole page around `body`; `title` is escaped here, `body` must already be safe HTML. */
export function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
  body { font-family: system-ui, sans-serif; background: #f4f5f7; color: #1a1c20; margin: 0; }
  main { max-width: 32rem; margin: 3rem auto; background: #fff; border-radius: 12px; padding: 2rem; box-shadow: 0 1px 4px rgba(0,0,0,.12); }
  h1 { font-size: 1.4rem; margin-top: 0; }
  .amount { font-size: 2rem; font-weight: 600; margin: .5rem 0 1.5rem; }
  dl { display: grid; grid-template-columns: max-content 1fr; gap: .4rem 1rem; }
  dt { color: #555; } dd { margin: 0; overflow-wrap: anywhere; }
  fieldset { border: 0; padding: 0; margin: 1.5rem 0 0; display: grid; gap: .6rem; }
  legend { font-weight: 600; margin-bottom: .6rem; }
  button { font: inherit; padding: .7rem 1rem; border-radius: 8px; border: 1px solid #2948ff; background: #2948ff; color: #fff; cursor: pointer; }
  button:focus-visible { outline: 3px solid #ffbf47; outline-offset: 2px; }
  .paid { background: #e3f6e8; color: #135c2a; border-radius: 8px; padding: 1rem; font-weight: 600; }
  .error { background: #fde8e8; color: #8a1111; border-radius: 8px; padding: 1rem; }
</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}
