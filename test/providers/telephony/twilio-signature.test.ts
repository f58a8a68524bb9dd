import { describe, expect, it } from 'vitest';
import { twilioSignature, verifyTwilioSignature } from '../../../src/providers/telephony/twilio-signature.js';

// The worked example of Twilio's request-validation documentation and its SDKs' tests.
const TOKEN = '12345';
const URL = 'https://mycompany.com/myapp.php?foo=1&bar=2';
const PARAMS: Array<[string, string]> = [
  ['Digits', '1234'],
  ['To', '+18005551212'],
  ['From', '+14158675309'],
  ['Caller', '+14158675309'],
  ['CallSid', 'CA1234567890ABCDE'],
];

describe('X-Twilio-Signature', () => {
  it("reproduces Twilio's published vectors, parameters in any order, repeated names included", () => {
    expect(twilioSignature(TOKEN, URL, PARAMS)).toBe('RSOYDt4T1cUTdK1PDd93/VVr8B8=');
    expect(twilioSignature(TOKEN, URL, [...PARAMS].reverse())).toBe('RSOYDt4T1cUTdK1PDd93/VVr8B8=');
    const repeated: Array<[string, string]> = [
      ['Sid', 'CA123'],
      ['SidAccount', 'AC123'],
      ['Digits', '5678'],
      ['Digits', '1234'],
      ['Digits', '1234'],
    ];
    expect(twilioSignature(TOKEN, URL, repeated)).toBe('IK+Dwps556ElfBT0I3Rgjkr1wJU=');
  });

  it('refuses a changed URL, parameter, token or signature, and a missing one', () => {
    const good = 'RSOYDt4T1cUTdK1PDd93/VVr8B8=';
    expect(verifyTwilioSignature(TOKEN, URL, PARAMS, good)).toBe(true);
    expect(verifyTwilioSignature(TOKEN, `${URL}&extra=1`, PARAMS, good)).toBe(false);
    expect(verifyTwilioSignature(TOKEN, URL, [...PARAMS, ['Extra', '1']], good)).toBe(false);
    expect(verifyTwilioSignature('54321', URL, PARAMS, good)).toBe(false);
    expect(verifyTwilioSignature(TOKEN, URL, PARAMS, 'RSOYDt4T1cUTdK1PDd93/VVr8B8')).toBe(false);
    expect(verifyTwilioSignature(TOKEN, URL, PARAMS, null)).toBe(false);
  });
});
