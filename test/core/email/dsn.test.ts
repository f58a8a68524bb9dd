import { describe, expect, it } from 'vitest';
import { deliveryReport, enhancedStatus } from '../../../src/core/email/dsn.js';
import { backoffMs, DEFAULT_RETRY_POLICY, retryPolicy } from '../../../src/core/email/retry-policy.js';

describe('delivery status notifications (RFC 3464)', () => {
  it('take the enhanced status code the reply carried, else 5.0.0 for a refusal and 4.4.7 for a message given up', () => {
    expect(enhancedStatus({ diagnostic: '550 5.1.1 <x@example.com>: no such user', reason: 'refused', replyCode: 550 })).toBe('5.1.1');
    expect(enhancedStatus({ diagnostic: '554 rejected', reason: 'refused', replyCode: 554 })).toBe('5.0.0');
    expect(enhancedStatus({ diagnostic: '451 4.3.0 try later', reason: 'expired', replyCode: 451 })).toBe('4.3.0');
    expect(enhancedStatus({ diagnostic: 'connect ECONNREFUSED 10.0.0.1:25', reason: 'expired', replyCode: null })).toBe('4.4.7');
  });

  it('hold per-message fields, one block per recipient and the original headers, each field on one line', () => {
    const report = deliveryReport({
      serviceDomain: 'agents.test',
      arrivalMs: Date.UTC(2026, 0, 1),
      originalHeaders: { 'Message-ID': '<msg_1@agents.test>', Subject: 'Hi\r\nBcc: injected' },
      subject: 'Hi',
      recipients: [
        { address: 'a@example.com', replyCode: 550, diagnostic: '550 5.1.1 gone\r\nX: y', reason: 'refused', lastAttemptMs: Date.UTC(2026, 0, 1) },
        { address: 'b@example.com', replyCode: null, diagnostic: 'timeout', reason: 'expired', lastAttemptMs: Date.UTC(2026, 0, 6) },
      ],
    });
    expect(report.subject).toBe('Undelivered Mail Returned to Sender');
    expect(report.status.split('\r\n\r\n')).toEqual([
      'Reporting-MTA: dns; agents.test\r\nArrival-Date: Thu, 01 Jan 2026 00:00:00 +0000',
      'Final-Recipient: rfc822; a@example.com\r\nAction: failed\r\nStatus: 5.1.1\r\nDiagnostic-Code: smtp; 550 5.1.1 gone X: y\r\nLast-Attempt-Date: Thu, 01 Jan 2026 00:00:00 +0000',
      'Final-Recipient: rfc822; b@example.com\r\nAction: failed\r\nStatus: 4.4.7\r\nDiagnostic-Code: smtp; timeout\r\nLast-Attempt-Date: Tue, 06 Jan 2026 00:00:00 +0000\r\n',
    ]);
    expect(report.originalHeaders).toBe('Message-ID: <msg_1@agents.test>\r\nSubject: Hi Bcc: injected\r\n');
    expect(report.text).toContain('<a@example.com>: the receiving server refused it with');
    expect(report.text).toContain('<b@example.com>: delivery was given up');
  });
});

describe('the retry policy', () => {
  it("doubles from Postfix's 300 s up to 4000 s, and refuses backoffs out of order", () => {
    expect([1, 2, 3, 4, 5, 6, 40].map((attempt) => backoffMs(DEFAULT_RETRY_POLICY, attempt) / 1000)).toEqual([300, 600, 1200, 2400, 4000, 4000, 4000]);
    expect(retryPolicy({ lifetime: '2d' })).toEqual({ ...DEFAULT_RETRY_POLICY, lifetimeMs: 2 * 86_400_000 });
    expect(() => retryPolicy({ minimalBackoff: '2h', maximalBackoff: '1h' })).toThrow(RangeError);
    expect(() => retryPolicy({ lifetime: 'soon' })).toThrow(RangeError);
  });
});
