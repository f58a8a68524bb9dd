import { href, html, notice, type Html } from '../html.js';
import type { PageContext } from '../page-context.js';

/** `/_dashboard/snapshot`: download the whole state, or restore one. */
export function snapshotPage(context: PageContext, message?: { kind: 'ok' | 'error'; text: string }): Html {
  const body = html`<h1>Snapshot</h1>
${message ? notice(message.kind, message.text) : ''}
<section class="card">
<h2>Download</h2>
<p>The whole world (every record, the clock and the random state) as one JSON file, the same as <code>GET /_sim/snapshot</code>.</p>
<p><a class="button" href="${href('/snapshot/download')}" download>Download snapshot</a></p>
</section>
<section class="card">
<h2>Restore</h2>
<p>Replaces the whole world with a snapshot file (<code>POST /_sim/restore</code>). What is not in the file is gone.</p>
<form method="post" action="${href('/snapshot/restore')}" enctype="multipart/form-data">
<input type="file" name="snapshot" accept="application/json,.json" required>
<button type="submit">Restore</button>
</form>
</section>`;
  return context.page('Snapshot', 'snapshot', body);
}
