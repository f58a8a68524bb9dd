import { describe, expect, it } from 'vitest';
import type { CardSecret } from '../../../src/core/ports/card-vault.js';
import { AesGcmCardVault } from '../../../src/providers/vault/aes-gcm-card-vault.js';

const SECRET: CardSecret = {
  number: '4242424242424242',
  cvv: '123',
  expires_at: '2029-01-01',
  billing_address: { name: 'Alice', line1: '1 Test Card Way', city: 'San Francisco', state: 'CA', postal_code: '94105', country: 'US' },
};

describe('the AES-256-GCM card vault', () => {
  it('opens what it sealed, and its sealed text holds nothing in clear', () => {
    const vault = AesGcmCardVault.fromText('00'.repeat(32));
    const sealed = vault.seal(SECRET, 'card_1');
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]+$/);
    for (const clear of ['4242424242424242', '123', 'Alice', 'Test Card']) expect(sealed).not.toContain(clear);
    expect(vault.open(sealed, 'card_1')).toEqual(SECRET);
  });

  it('seals the same way for the same key and card (a seeded world stays the same), differently for another card', () => {
    const one = AesGcmCardVault.fromSeed(7);
    const again = AesGcmCardVault.fromSeed(7);
    expect(one.seal(SECRET, 'card_1')).toBe(again.seal(SECRET, 'card_1'));
    expect(one.seal(SECRET, 'card_2')).not.toBe(one.seal(SECRET, 'card_1'));
    expect(AesGcmCardVault.fromSeed(8).seal(SECRET, 'card_1')).not.toBe(one.seal(SECRET, 'card_1'));
  });

  it('refuses text sealed for another card, with another key, or altered', () => {
    const vault = AesGcmCardVault.fromSeed(1);
    const sealed = vault.seal(SECRET, 'card_1');
    expect(() => vault.open(sealed, 'card_2')).toThrow();
    expect(() => AesGcmCardVault.fromSeed(2).open(sealed, 'card_1')).toThrow();
    const flipped = sealed.slice(0, -2) + (sealed.at(-2) === 'A' ? 'B' : 'A') + sealed.at(-1);
    expect(() => vault.open(flipped, 'card_1')).toThrow();
    expect(() => vault.open('plain text', 'card_1')).toThrow();
  });

  it('takes a key of 32 bytes as hex or base64, and names what it expects otherwise without echoing it', () => {
    expect(() => AesGcmCardVault.fromText(Buffer.alloc(32, 9).toString('base64'))).not.toThrow();
    expect(() => AesGcmCardVault.fromText('ab'.repeat(32))).not.toThrow();
    for (const bad of ['short-secret-value', 'ab'.repeat(31), Buffer.alloc(16).toString('base64')]) {
      let message = '';
      try {
        AesGcmCardVault.fromText(bad);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toMatch(/32 bytes/);
      expect(message).not.toContain(bad);
    }
  });
});
