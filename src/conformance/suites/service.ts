import { ApiError } from '../../core/shared/api-error.js';
import { check, checkEqual, expectError, sameJson, show } from '../assert.js';
import type { CheckDefinition } from '../types.js';
import { freshKey } from './shared.js';

/** Reads a raw answer as JSON. */
async function json(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Checks a raw error answer: status, JSON error body with this code (and param when given). */
async function expectRawError(what: string, response: Response, status: number, code: string, param?: string): Promise<void> {
  const body = (await json(response)) as { error?: { code?: string; param?: string } };
  check(response.status === status && body?.error?.code === code, `${what}: expected ${status} ${code}, got ${response.status} ${show(body)}`);
  if (param !== undefined) checkEqual(body.error?.param, param, `${what}: param`);
}

/** Cross-cutting rules: authentication, idempotency, the error answers of the HTTP surface. */
export const SERVICE_CHECKS: CheckDefinition[] = [
  {
    area: 'service',
    name: 'a missing or unknown API key is 401 unauthorized',
    run: async ({ target }) => {
      await expectError('an unknown API key', target.agent('sk_cf_not_a_key').identity.getProfile(), 401, 'unauthorized');
      await expectError('an empty API key', target.agent('').wallet.getBalance(), 401, 'unauthorized');
    },
  },
  {
    area: 'service',
    name: 'a repeated Idempotency-Key replays the first answer and takes effect once',
    run: async ({ agent }) => {
      const payer = await agent({ balances: { usd: '10' } });
      const payee = await agent();
      const key = freshKey('replay');
      const body = { to: payee.handle, amount: '3', asset: 'usd' as const };
      const first = await payer.client.wallet.send(body, { idempotencyKey: key });
      const second = await payer.client.wallet.send(body, { idempotencyKey: key });
      check(sameJson(first, second), `the replay answered ${show(second)}, the first answer was ${show(first)}`);
      checkEqual((await payer.client.wallet.getBalance()).fiat.usd, '7.00', 'usd after one send sent twice with one key');
      checkEqual((await payee.client.wallet.getBalance()).fiat.usd, '3.00', "the payee's usd after the replay");
    },
  },
  {
    area: 'service',
    name: 'a replayed answer carries Idempotent-Replayed: true and the first status',
    needs: ['raw'],
    run: async ({ agent, target }) => {
      const author = await agent();
      const key = freshKey('header');
      const request = () =>
        target.fetch!('/v1/memory', {
          method: 'POST',
          headers: { authorization: `Bearer ${author.api_key}`, 'content-type': 'application/json', 'idempotency-key': key },
          body: JSON.stringify({ content: 'replayed once' }),
        });
      const first = await request();
      const firstBody = await json(first);
      check(first.status === 201, `POST /v1/memory answered ${first.status}: ${show(firstBody)}`);
      check(first.headers.get('idempotent-replayed') === null, 'the first answer carries Idempotent-Replayed');
      const second = await request();
      const secondBody = await json(second);
      checkEqual(second.status, 201, 'status of the replay');
      checkEqual(second.headers.get('idempotent-replayed'), 'true', 'the Idempotent-Replayed header of the replay');
      check(sameJson(firstBody, secondBody), `the replay's body ${show(secondBody)} differs from the first ${show(firstBody)}`);
    },
  },
  {
    area: 'service',
    name: 'a key reused with another body is 409 idempotency_conflict',
    run: async ({ agent }) => {
      const author = await agent();
      const key = freshKey('conflict');
      await author.client.memory.create({ content: 'first body' }, { idempotencyKey: key });
      await expectError('the same key with another body', author.client.memory.create({ content: 'second body' }, { idempotencyKey: key }), 409, 'idempotency_conflict');
    },
  },
  {
    area: 'service',
    name: 'concurrent requests with one key take effect once (the rest replay or are 409 idempotency_key_in_use)',
    run: async ({ agent }) => {
      const payer = await agent({ balances: { usd: '10' } });
      const payee = await agent();
      const key = freshKey('in-use');
      const outcomes = await Promise.allSettled(Array.from({ length: 8 }, () => payer.client.wallet.send({ to: payee.handle, amount: '1', asset: 'usd' }, { idempotencyKey: key })));
      const ids = new Set<string>();
      for (const outcome of outcomes) {
        if (outcome.status === 'fulfilled') ids.add(outcome.value.transaction_id);
        else {
          const error = outcome.reason as unknown;
          if (!(error instanceof ApiError)) throw error;
          check(error.code === 'idempotency_key_in_use' && error.status === 409, `a concurrent request with the same key answered ${error.status} ${error.code}`);
        }
      }
      check(ids.size === 1, `concurrent requests with one key made ${ids.size} different transactions`);
      checkEqual((await payer.client.wallet.getBalance()).fiat.usd, '9.00', 'usd after 8 concurrent sends with one key');
    },
  },
  {
    area: 'service',
    name: 'a request that failed with 402 replays as the same 402',
    run: async ({ agent }) => {
      const payer = await agent({ balances: { usd: '1' } });
      const payee = await agent();
      const key = freshKey('402');
      const body = { to: payee.handle, amount: '2', asset: 'usd' as const };
      await expectError('the first unaffordable send', payer.client.wallet.send(body, { idempotencyKey: key }), 402, 'insufficient_funds');
      await payer.client.wallet.getBalance();
      await expectError('its replay', payer.client.wallet.send(body, { idempotencyKey: key }), 402, 'insufficient_funds');
    },
  },
  {
    area: 'service',
    name: 'unknown paths, wrong methods, bodies without JSON content type and malformed JSON answer their DECISIONS.md errors',
    needs: ['raw'],
    run: async ({ agent, target }) => {
      const author = await agent();
      const auth = { authorization: `Bearer ${author.api_key}` };
      await expectRawError('GET /v1/no-such-thing', await target.fetch!('/v1/no-such-thing', { headers: auth }), 404, 'not_found');
      const wrong = await target.fetch!('/v1/wallet/balance', { method: 'DELETE', headers: auth });
      check((wrong.headers.get('allow') ?? '').toUpperCase().includes('GET'), `DELETE /v1/wallet/balance: the 405 answer's Allow header is ${JSON.stringify(wrong.headers.get('allow'))}`);
      await expectRawError('DELETE /v1/wallet/balance', wrong, 405, 'method_not_allowed');
      await expectRawError(
        'POST /v1/memory as text/plain',
        await target.fetch!('/v1/memory', { method: 'POST', headers: { ...auth, 'content-type': 'text/plain' }, body: '{"content":"x"}' }),
        415,
        'unsupported_media_type',
      );
      await expectRawError(
        'POST /v1/memory with malformed JSON',
        await target.fetch!('/v1/memory', { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{"content":' }),
        400,
        'invalid_request',
      );
    },
  },
];
