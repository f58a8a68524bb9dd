import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { speechSeconds } from './speech.js';

/** Largest TwiML document accepted, in characters (Twilio's limit is 64 kB). */
export const TWIML_MAX_CHARS = 64 * 1024;

/** One instruction of a call flow, as the simulated carrier runs it. */
export type TwimlVerb =
  | { verb: 'say'; text: string }
  | { verb: 'pause'; seconds: number }
  | { verb: 'play'; url: string }
  | { verb: 'redirect'; url: string; method: 'GET' | 'POST' }
  | { verb: 'hangup' }
  | { verb: 'reject'; reason: 'rejected' | 'busy' };

/** How a document's run ended, at which second after it started. */
export type TwimlEnd =
  | { kind: 'end'; offset: number }
  | { kind: 'hangup'; offset: number }
  | { kind: 'reject'; offset: number; reason: 'rejected' | 'busy' }
  | { kind: 'redirect'; offset: number; url: string; method: 'GET' | 'POST' }
  /** The call reached its time limit while the document was still running. */
  | { kind: 'limit'; offset: number };

/** What running one document does: lines spoken (seconds after its start) and how it ends. */
export interface TwimlRun {
  said: Array<{ offset: number; text: string }>;
  end: TwimlEnd;
}

type Node = Record<string, unknown> & { ':@'?: Record<string, string> };

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  trimValues: true,
  parseTagValue: false,
  parseAttributeValue: false,
  processEntities: true,
});

/** Most repetitions a `loop` attribute may ask for (Twilio's cap for `loop="0"` is 1,000; a call is not a loop). */
const LOOP_MAX = 100;

/** Most verbs one document expands to, loops counted: past it the rest of the document is passed over. */
export const TWIML_VERBS_MAX = 10_000;

/**
 * The verbs of a TwiML document, in order, or undefined when it is not TwiML (not well-formed XML,
 * a DOCTYPE, or a root other than `<Response>`). `<Gather>` runs its nested `<Say>`, `<Play>` and
 * `<Pause>` and then waits its `timeout` (default 5 s) for digits that never come; verbs the
 * simulated carrier cannot act on (`<Dial>`, `<Record>`, `<Sms>`, ...) are passed over.
 */
export function parseTwiml(document: string): TwimlVerb[] | undefined {
  if (document.length > TWIML_MAX_CHARS || /<!DOCTYPE/i.test(document)) return undefined;
  if (XMLValidator.validate(document) !== true) return undefined;
  let nodes: Node[];
  try {
    nodes = parser.parse(document) as Node[];
  } catch {
    return undefined;
  }
  const roots = nodes.filter((node) => !Object.keys(node).some((key) => key.startsWith('?') || key === '#comment'));
  const root = roots[0];
  if (roots.length !== 1 || !root || !Array.isArray(root.Response)) return undefined;
  return verbsOf(root.Response as Node[], false, []);
}

function verbsOf(children: Node[], nested: boolean, verbs: TwimlVerb[]): TwimlVerb[] {
  for (const child of children) {
    if (verbs.length >= TWIML_VERBS_MAX) break;
    const name = Object.keys(child).find((key) => key !== ':@');
    if (!name || name === '#text') continue;
    const attributes = child[':@'] ?? {};
    const content = Array.isArray(child[name]) ? (child[name] as Node[]) : [];
    const loop = Math.min(LOOP_MAX, TWIML_VERBS_MAX - verbs.length, Math.max(1, integer(attributes.loop, 1)));
    switch (name) {
      case 'Say':
        for (let i = 0; i < loop; i++) verbs.push({ verb: 'say', text: textOf(content) });
        break;
      case 'Play':
        for (let i = 0; i < loop; i++) verbs.push({ verb: 'play', url: textOf(content) });
        break;
      case 'Pause':
        verbs.push({ verb: 'pause', seconds: Math.max(0, integer(attributes.length, 1)) });
        break;
      case 'Gather':
        if (!nested) {
          verbsOf(content, true, verbs);
          verbs.push({ verb: 'pause', seconds: Math.max(0, integer(attributes.timeout, 5)) });
        }
        break;
      case 'Redirect':
        if (!nested) verbs.push({ verb: 'redirect', url: textOf(content), method: attributes.method?.toUpperCase() === 'GET' ? 'GET' : 'POST' });
        break;
      case 'Hangup':
        if (!nested) verbs.push({ verb: 'hangup' });
        break;
      case 'Reject':
        if (!nested) verbs.push({ verb: 'reject', reason: attributes.reason === 'busy' ? 'busy' : 'rejected' });
        break;
      default:
        break;
    }
  }
  return verbs;
}

/** The text of an element, nested markup (SSML such as `<emphasis>`) flattened, white space collapsed. */
function textOf(content: Node[]): string {
  const parts: string[] = [];
  const walk = (nodes: Node[]) => {
    for (const node of nodes) {
      for (const [key, value] of Object.entries(node)) {
        if (key === '#text') parts.push(String(value));
        else if (key !== ':@' && Array.isArray(value)) walk(value as Node[]);
      }
    }
  };
  walk(content);
  return parts.join(' ').replace(/\s+/g, ' ').trim();
}

function integer(text: string | undefined, fallback: number): number {
  if (text === undefined || !/^\s*\d{1,6}\s*$/.test(text)) return fallback;
  return Number(text);
}

/**
 * Runs a document's verbs from second 0: `<Say>` speaks at `wordsPerMinute`, `<Pause>` waits,
 * `<Play>` takes no time, and the run stops at the first `<Hangup>`, `<Reject>` or `<Redirect>`,
 * at the end of the document, or when `limitSeconds` have passed (the call's remaining time: a
 * line started before it is spoken, nothing after it).
 */
export function runTwiml(verbs: readonly TwimlVerb[], wordsPerMinute: number, limitSeconds = Number.POSITIVE_INFINITY): TwimlRun {
  const said: TwimlRun['said'] = [];
  let offset = 0;
  for (const verb of verbs) {
    if (offset >= limitSeconds) return { said, end: { kind: 'limit', offset: limitSeconds } };
    switch (verb.verb) {
      case 'say':
        said.push({ offset, text: verb.text });
        offset += speechSeconds(verb.text, wordsPerMinute);
        break;
      case 'pause':
        offset += verb.seconds;
        break;
      case 'play':
        break;
      case 'hangup':
        return { said, end: { kind: 'hangup', offset } };
      case 'reject':
        return { said, end: { kind: 'reject', offset, reason: verb.reason } };
      case 'redirect':
        return { said, end: { kind: 'redirect', offset, url: verb.url, method: verb.method } };
    }
  }
  if (offset > limitSeconds) return { said, end: { kind: 'limit', offset: limitSeconds } };
  return { said, end: { kind: 'end', offset } };
}
