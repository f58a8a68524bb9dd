import type { MessageAuthentication } from '../../core/email/email.schema.js';
import { html, type Html } from '../html.js';

/** What an agent should make of a message's sender, in a word and a status colour. */
function reading(authentication: MessageAuthentication | null): { label: string; status: string } {
  if (authentication === null) return { label: 'sender not checked', status: 'pending' };
  switch (authentication.dmarc) {
    case 'pass':
      return { label: `sender verified: ${authentication.from_domain}`, status: 'ok' };
    case 'fail':
      return { label: `DMARC fail: not from ${authentication.from_domain || 'its From domain'}`, status: 'failed' };
    case 'temperror':
    case 'permerror':
      return { label: `sender check failed (${authentication.dmarc})`, status: 'pending' };
    default:
      return { label: 'sender unverified', status: 'pending' };
  }
}

/**
 * The verdict on who sent a message, as a badge whose title spells out SPF, DKIM and DMARC
 * (DECISIONS.md, "Mail on the internet"): green when DMARC passes, red when it fails.
 */
export function verdictBadge(authentication: MessageAuthentication | null): Html {
  const { label, status } = reading(authentication);
  const detail =
    authentication === null
      ? 'given to the control plane: no SPF, DKIM or DMARC check was made'
      : `spf=${authentication.spf}; ${authentication.dkim.length === 0 ? 'dkim=none' : authentication.dkim.map((signature) => `dkim=${signature.result} (${signature.domain}, s=${signature.selector})`).join('; ')}; dmarc=${authentication.dmarc}`;
  return html`<span class="status status-${status} verdict" data-dmarc="${authentication?.dmarc ?? 'unchecked'}" title="${detail}">${label}</span>`;
}

/** The verdict spelled out, for a message's fields. */
export function verdictDetail(authentication: MessageAuthentication | null): string {
  if (authentication === null) return 'not checked (control plane)';
  const dkim = authentication.dkim.length === 0 ? 'none' : authentication.dkim.map((signature) => `${signature.result} (${signature.domain}, s=${signature.selector})`).join(', ');
  return `SPF ${authentication.spf}, DKIM ${dkim}, DMARC ${authentication.dmarc}, From domain ${authentication.from_domain || '(none)'}`;
}
