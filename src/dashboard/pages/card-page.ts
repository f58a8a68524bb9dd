import { fields, html, htmlResponse, notice } from '../html.js';
import type { PageContext } from '../page-context.js';
import { agentFrame, subjectNamed } from './agent-page.js';

/**
 * A card's page (`/_dashboard/agents/{name}/cards/{card_id}`). The first GET after the card was
 * made shows its full number, CVV, expiry and billing address (DECISIONS.md: shown once; the
 * card vault gives them up and forgets them in one transaction); every later request shows only
 * `last4`. A HEAD never spends the one showing. The answer is never cached.
 * @throws ApiError 404 not_found for an agent or card that does not exist (or is another agent's)
 */
export async function cardPage(context: PageContext, name: string, cardId: string): Promise<Response> {
  const subject = await subjectNamed(context, name);
  const card = await subject.client.wallet.getCard(cardId);
  const secret = context.request.method === 'GET' ? await context.runtime.revealCardOnce(card.card_id) : null;
  const summary: Array<[string, unknown]> = [
    ['Card', card.card_id],
    ['Label', card.label],
    ['Limit', `${card.limit} ${card.currency}`],
    ['Expires', card.expires_at],
    ['Status', card.status],
  ];
  const details = secret
    ? html`${notice('ok', 'Shown once: copy these details now. This page will show only the last four digits from now on.')}
${fields([
  ['Number', secret.number, html`<code class="card-number">${secret.number.replace(/(\d{4})(?=\d)/g, '$1 ')}</code>`],
  ['CVV', secret.cvv, html`<code class="card-cvv">${secret.cvv}</code>`],
  ['Expiry', secret.expires_at],
  ['Billing name', secret.billing_address.name],
  ['Billing address', `${secret.billing_address.line1}, ${secret.billing_address.city}, ${secret.billing_address.state} ${secret.billing_address.postal_code}, ${secret.billing_address.country}`],
])}`
    : html`${fields([['Number', `•••• •••• •••• ${card.last4}`, html`<code class="card-number">•••• •••• •••• ${card.last4}</code>`]])}
<p class="muted">The full number, CVV and billing address were shown once, when this page was first opened after the card was made.</p>`;
  const body = html`<section class="card"><h2>Card ending ${card.last4}</h2>${fields(summary)}${details}</section>`;
  return htmlResponse(agentFrame(context, subject, 'wallet', `card ${card.last4}`, body), { headers: { 'cache-control': 'no-store' } });
}
