import fc from 'fast-check';
import { ApiError } from '../../core/shared/api-error.js';
import { check, checkEqual, expectError, expectOk } from '../assert.js';
import { checkProperty } from '../property.js';
import type { CheckDefinition } from '../types.js';
import { checkWalk, EXTERNAL, toMinor, walkPages } from './shared.js';
import { moneyConservation } from './wallet-model.js';

/** Wallet checks: the ledger model, concurrency, pagination, errors, isolation, settlement, faults. */
export const WALLET_CHECKS: CheckDefinition[] = [
  {
    area: 'wallet',
    name: 'money is conserved and no balance goes negative over random call sequences',
    property: true,
    run: moneyConservation,
  },
  {
    area: 'wallet',
    name: 'exactly the affordable share of concurrent sends succeeds',
    property: true,
    run: (context) =>
      checkProperty(
        context,
        fc.asyncProperty(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 5 }), fc.integer({ min: 2, max: 16 }), async (units, each, sends) => {
          const payer = await context.agent({ balances: { usd: String(units) } });
          const payee = await context.agent();
          const outcomes = await Promise.allSettled(Array.from({ length: sends }, () => payer.client.wallet.send({ to: payee.handle, amount: String(each), asset: 'usd' })));
          const succeeded = outcomes.filter((outcome) => outcome.status === 'fulfilled').length;
          for (const outcome of outcomes) {
            if (outcome.status === 'rejected') {
              const error = outcome.reason as unknown;
              if (!(error instanceof ApiError)) throw error;
              check(error.status === 402 && error.code === 'insufficient_funds', `a refused concurrent send answered ${error.status} ${error.code}, expected 402 insufficient_funds`);
            }
          }
          const affordable = Math.min(sends, Math.floor(units / each));
          check(succeeded === affordable, `${sends} concurrent sends of ${each} usd from a balance of ${units}: ${succeeded} succeeded, exactly ${affordable} should`);
          const left = await payer.client.wallet.getBalance();
          checkEqual(toMinor(left.fiat.usd, 'usd'), BigInt((units - affordable * each) * 100), 'usd minor units left after the concurrent sends');
        }),
      ),
  },
  {
    area: 'wallet',
    name: 'a send above the balance is 402 insufficient_funds and changes nothing',
    run: async ({ agent }) => {
      const payer = await agent({ balances: { usd: '5', usdc: '1' } });
      const payee = await agent();
      await expectError('sending 5.01 usd from 5', payer.client.wallet.send({ to: payee.handle, amount: '5.01', asset: 'usd' }), 402, 'insufficient_funds');
      await expectError('sending 1 usdc (plus a network fee) from 1', payer.client.wallet.send({ to: EXTERNAL.evm, amount: '1', asset: 'usdc' }), 402, 'insufficient_funds');
      const balance = await payer.client.wallet.getBalance();
      checkEqual([balance.fiat.usd, toMinor(balance.crypto.usdc, 'usdc')], ['5.00', 1_000_000n], 'balances after the refused sends');
      const history = await payer.client.wallet.listTransactions({ direction: 'out' });
      checkEqual(history.transactions.length, 0, 'out records after refused sends');
    },
  },
  {
    area: 'wallet',
    name: 'history pages see every record once while new ones arrive',
    run: async ({ agent, target }) => {
      const owner = await agent();
      for (let index = 1; index <= 23; index++) await target.control.fund({ handle: owner.handle, asset: 'usd', amount: `${index}` });
      const before = await walkPages(async (cursor) => {
        const page = await owner.client.wallet.listTransactions({ limit: 100, ...(cursor ? { cursor } : {}) });
        return { items: page.transactions.map((record) => record.id), next: page.next_cursor };
      });
      check(before.length >= 23, `the history lists ${before.length} records after 23 fundings`);
      let extra = 0;
      let largest = 0;
      const seen = await walkPages(
        async (cursor) => {
          const page = await owner.client.wallet.listTransactions({ limit: 4, ...(cursor ? { cursor } : {}) });
          largest = Math.max(largest, page.transactions.length);
          return { items: page.transactions.map((record) => record.id), next: page.next_cursor };
        },
        async () => {
          await target.control.fund({ handle: owner.handle, asset: 'eur', amount: `${++extra}` });
        },
      );
      checkWalk('GET /v1/wallet/transactions?limit=4', before, seen);
      check(largest <= 4, `a page of limit 4 held ${largest} records`);
    },
  },
  {
    area: 'wallet',
    name: 'a book transfer is confirmed at once and the recipient gets an in record with the same id',
    run: async ({ agent }) => {
      const payer = await agent({ balances: { eur: '10' } });
      const payee = await agent();
      const sent = await payer.client.wallet.send({ to: payee.email, amount: '2.5', asset: 'eur', memo: 'thanks' });
      checkEqual([sent.status, sent.fee.amount === '0' || toMinor(sent.fee.amount, 'eur') === 0n], ['confirmed', true], 'status and zero fee of a book transfer');
      const incoming = await expectOk('the recipient opening the transfer', payee.client.wallet.getTransaction(sent.transaction_id));
      checkEqual([incoming.direction, incoming.amount, incoming.asset, incoming.memo], ['in', '2.50', 'eur', 'thanks'], 'the recipient record');
      checkEqual((await payee.client.wallet.getBalance()).fiat.eur, '2.50', "the recipient's eur balance");
    },
  },
  {
    area: 'wallet',
    name: 'an on-chain send is pending until the clock passes its confirmation',
    run: async ({ agent, target }) => {
      const payer = await agent({ balances: { usdc: '10' } });
      const sent = await payer.client.wallet.send({ to: EXTERNAL.solana, amount: '1', asset: 'usdc' });
      checkEqual(sent.status, 'pending', 'status of a Solana send');
      await target.control.advanceClock(60);
      checkEqual((await payer.client.wallet.getTransaction(sent.transaction_id)).status, 'confirmed', 'status a minute later');
    },
  },
  {
    area: 'wallet',
    name: 'bad sends are refused with the DECISIONS.md code and param',
    run: async ({ agent }) => {
      const payer = await agent({ balances: { usd: '10' } });
      const send = payer.client.wallet.send;
      await expectError('amount with 3 places in usd', send({ to: EXTERNAL.iban, amount: '1.001', asset: 'usd' }), 400, 'invalid_amount', 'amount');
      await expectError('a negative amount', send({ to: EXTERNAL.iban, amount: '-1', asset: 'usd' }), 400, 'invalid_amount', 'amount');
      await expectError('a zero amount', send({ to: EXTERNAL.iban, amount: '0', asset: 'usd' }), 400, 'invalid_amount', 'amount');
      await expectError('a recipient of no known form', send({ to: 'not a recipient!', amount: '1', asset: 'usd' }), 400, 'invalid_recipient', 'to');
      await expectError('a bank account for a crypto asset', send({ to: EXTERNAL.iban, amount: '1', asset: 'usdc' }), 400, 'invalid_recipient', 'to');
      await expectError('a network for a fiat asset', send({ to: EXTERNAL.iban, amount: '1', asset: 'usd', network: 'base' }), 400, 'unsupported_network', 'network');
      await expectError('a handle with no wallet', send({ to: 'cf-nobody-here-0', amount: '1', asset: 'usd' }), 404, 'recipient_not_found');
      await expectError('an unknown asset', send({ to: EXTERNAL.iban, amount: '1', asset: 'doge' as 'usd' }), 400, 'invalid_request', 'asset');
      await expectError('limit 0', payer.client.wallet.listTransactions({ limit: 0 }), 400, 'invalid_request', 'limit');
      await expectError('limit 101', payer.client.wallet.listTransactions({ limit: 101 }), 400, 'invalid_request', 'limit');
      checkEqual((await payer.client.wallet.getBalance()).fiat.usd, '10.00', 'usd balance after refused sends');
    },
  },
  {
    area: 'wallet',
    name: "another agent's transactions, invoices and cards are 404 not_found",
    run: async ({ agent }) => {
      const owner = await agent({ balances: { usd: '20' } });
      const other = await agent();
      const sent = await owner.client.wallet.send({ to: EXTERNAL.iban, amount: '1', asset: 'usd' });
      const invoice = await owner.client.wallet.createInvoice({ to: other.handle, amount: '3', currency: 'usd', description: 'work' });
      const card = await owner.client.wallet.createCard({ limit: '10', currency: 'usd' });
      await expectError("another agent's transaction", other.client.wallet.getTransaction(sent.transaction_id), 404, 'not_found');
      await expectError("another agent's invoice", other.client.wallet.getInvoice(invoice.invoice_id), 404, 'not_found');
      await expectError("another agent's card", other.client.wallet.getCard(card.card_id), 404, 'not_found');
      await expectOk('the owner opening its own transaction', owner.client.wallet.getTransaction(sent.transaction_id));
    },
  },
  {
    area: 'wallet',
    name: 'a chain.submit fault fails the send, returns the amount and keeps the fee',
    needs: ['faults'],
    run: async ({ agent, target }) => {
      const faults = (await target.control.faults())!;
      const payer = await agent({ balances: { usdc: '10' } });
      const fault = await faults.add({ target: 'chain.submit', effect: 'fail', count: 1 });
      try {
        check(typeof fault.fault_id === 'string', `POST /_sim/faults answered no fault_id: ${JSON.stringify(fault)}`);
        const sent = await payer.client.wallet.send({ to: EXTERNAL.solana, amount: '4', asset: 'usdc' });
        const fee = toMinor(sent.fee.amount, 'usdc');
        await target.control.advanceClock(120);
        checkEqual((await payer.client.wallet.getTransaction(sent.transaction_id)).status, 'failed', 'status of the send a fault failed');
        checkEqual(toMinor((await payer.client.wallet.getBalance()).crypto.usdc, 'usdc'), 10_000_000n - fee, 'usdc after the failed send (amount back, fee kept)');
      } finally {
        await faults.clear();
      }
    },
  },
];
