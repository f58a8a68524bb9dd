import { describe, expect, it } from 'vitest';
import { speechSeconds, wordCount } from '../../../src/core/phone/speech.js';
import { parseTwiml, runTwiml, TWIML_VERBS_MAX } from '../../../src/core/phone/twiml.js';

describe('speech', () => {
  it('speaks 150 words per minute, ceil(words / 2.5) seconds, at least 1', () => {
    expect(wordCount('  Hello,   world \n again ')).toBe(3);
    expect(speechSeconds('')).toBe(1);
    expect(speechSeconds('one')).toBe(1);
    expect(speechSeconds('one two three')).toBe(2);
    expect(speechSeconds('a b c d e')).toBe(2);
    expect(speechSeconds('a b c d e f')).toBe(3);
    expect(speechSeconds(Array(150).fill('w').join(' '))).toBe(60);
    expect(speechSeconds('a b c d e f', 60)).toBe(6);
  });
});

describe('TwiML', () => {
  it('reads Say, Pause, Play, Redirect, Hangup and Reject in order', () => {
    const verbs = parseTwiml(
      `<?xml version="1.0" encoding="UTF-8"?>
       <Response><Say voice="alice">Hello &amp; welcome</Say><Pause length="3"/><Play>https://x.test/a.mp3</Play>
       <Redirect method="GET">/next</Redirect><Hangup/><Reject reason="busy"/></Response>`,
    );
    expect(verbs).toEqual([
      { verb: 'say', text: 'Hello & welcome' },
      { verb: 'pause', seconds: 3 },
      { verb: 'play', url: 'https://x.test/a.mp3' },
      { verb: 'redirect', url: '/next', method: 'GET' },
      { verb: 'hangup' },
      { verb: 'reject', reason: 'busy' },
    ]);
  });

  it("repeats looped verbs, runs a Gather's prompts then its timeout, and passes over verbs it cannot act on", () => {
    expect(parseTwiml('<Response><Say loop="2">Hi</Say><Gather timeout="2"><Say>Press 1</Say></Gather><Dial>+14155552671</Dial><Pause/></Response>')).toEqual([
      { verb: 'say', text: 'Hi' },
      { verb: 'say', text: 'Hi' },
      { verb: 'say', text: 'Press 1' },
      { verb: 'pause', seconds: 2 },
      { verb: 'pause', seconds: 1 },
    ]);
    expect(parseTwiml('<Response/>')).toEqual([]);
  });

  it('refuses what is not TwiML', () => {
    for (const document of ['hello', '{"say":"hi"}', '<html><body>hi</body></html>', '<Response><Say>open', '', '<Response/><Response/>', '<!DOCTYPE x [<!ENTITY a "b">]><Response/>']) {
      expect(parseTwiml(document), document).toBeUndefined();
    }
  });

  it('times a run: lines at their offsets, stopping at the first Hangup, Reject or Redirect', () => {
    const verbs = parseTwiml('<Response><Say>one two three</Say><Pause length="4"/><Play>x</Play><Say>four</Say><Hangup/><Say>never</Say></Response>')!;
    expect(runTwiml(verbs, 150)).toEqual({
      said: [
        { offset: 0, text: 'one two three' },
        { offset: 6, text: 'four' },
      ],
      end: { kind: 'hangup', offset: 7 },
    });
    expect(runTwiml(parseTwiml('<Response><Pause length="2"/><Redirect>/again</Redirect></Response>')!, 150).end).toEqual({ kind: 'redirect', offset: 2, url: '/again', method: 'POST' });
    expect(runTwiml(parseTwiml('<Response><Reject/></Response>')!, 150).end).toEqual({ kind: 'reject', offset: 0, reason: 'rejected' });
    expect(runTwiml([], 150).end).toEqual({ kind: 'end', offset: 0 });
  });

  it('stops at the time limit: a line started before it is said, nothing after, and the run ends at the limit', () => {
    const verbs = parseTwiml('<Response><Say>one two</Say><Pause length="5"/><Say>three</Say></Response>')!;
    expect(runTwiml(verbs, 150, 3)).toEqual({ said: [{ offset: 0, text: 'one two' }], end: { kind: 'limit', offset: 3 } });
    expect(runTwiml(verbs, 150, 1)).toEqual({ said: [{ offset: 0, text: 'one two' }], end: { kind: 'limit', offset: 1 } });
    expect(runTwiml(verbs, 150, 100).end).toEqual({ kind: 'end', offset: 7 });
  });

  it('expands one document to at most 10,000 verbs, loops counted', () => {
    const verbs = parseTwiml(`<Response>${'<Say loop="100">x</Say>'.repeat(200)}<Hangup/></Response>`)!;
    expect(verbs).toHaveLength(TWIML_VERBS_MAX);
    expect(verbs.every((verb) => verb.verb === 'say')).toBe(true);
  });
});
