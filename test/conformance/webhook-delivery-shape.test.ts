/** The conformance suite's check of a delivered body against the catalog entry of its type. */
import { describe, expect, it } from 'vitest';
import { deliveryMisfit } from '../../src/conformance/suites/webhooks.js';

const sms = {
  message_id: 'sms_1',
  to: '+14155552671',
  from: '+15005550100',
  body: 'x',
  status: 'sent',
  num_segments: 1,
  encoding: 'GSM-7',
  error_code: null,
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
};
const body = { id: 'evt_1', type: 'sms.status_changed', created_at: '2026-01-01T00:00:00.000Z', agent_id: 'agt_1', data: sms };

describe('deliveryMisfit', () => {
  it('accepts a body that fits and names what does not', () => {
    expect(deliveryMisfit('sms.status_changed', body)).toBeUndefined();
    expect(deliveryMisfit('sms.status_changed', { ...body, data: { ...sms, status: 'lost' } })).toMatch(/^data\.status: /);
    expect(deliveryMisfit('sms.status_changed', { ...body, id: 'ev_1' })).toMatch(/^id: /);
    expect(deliveryMisfit('sms.status_changed', { ...body, extra: 1 })).toMatch(/extra/);
    expect(deliveryMisfit('sms.status_changed', { ...body, type: 'sms.received' })).toMatch(/^type: /);
  });
});
