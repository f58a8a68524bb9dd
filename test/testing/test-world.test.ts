import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/index.js';
import { createTestWorld, loadFixture, type TestWorld } from '../../src/testing/index.js';

const EVM = '0x52908400098527886E0F7030069857D2E4169EE7';

describe('createTestWorld', () => {
  it('creates the agents with their profiles and balances, and a client and key per name', async () => {
    const world = await createTestWorld({
      seed: 1,
      agents: { alice: { display_name: 'Alice', bio: 'buys things', balances: { usd: '100', usdc: '5' } }, bob: {} },
    });
    try {
      expect(await world.agents.alice.identity.getProfile()).toMatchObject({ handle: 'alice.agents.test', display_name: 'Alice', bio: 'buys things' });
      expect((await world.agents.alice.wallet.getBalance()).fiat.usd).toBe('100.00');
      expect(world.keys.bob).toMatch(/^sk_/);
      expect(world.created.bob).toMatchObject({ handle: 'bob.agents.test', email: 'bob@agents.test' });
      expect(world.created.bob).not.toHaveProperty('api_key');
      await world.agents.alice.wallet.send({ to: 'bob', amount: '10', asset: 'usd' });
      expect((await world.agents.bob.wallet.getBalance()).fiat.usd).toBe('10.00');
    } finally {
      await world.close();
    }
  });

  it('gives the same keys and ids for the same seed, and answers HTTP requests in-process', async () => {
    const [one, two] = await Promise.all([createTestWorld({ seed: 'same', agents: { a1: {} } }), createTestWorld({ seed: 'same', agents: { a1: {} } })]);
    try {
      expect(one.keys.a1).toBe(two.keys.a1);
      const response = await one.fetch('/v1/agent', { headers: { authorization: `Bearer ${one.keys.a1}` } });
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ handle: 'a1.agents.test' });
      expect((await one.fetch(new Request('http://any.host/v1/agent'))).status).toBe(401);
      expect((await one.sim.getClock()).now).toBe('2026-01-01T00:00:00.000Z');
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  });

  it('passes every agent field to the service, which judges it', async () => {
    const british = await createTestWorld({ agents: { dave: { phone_country: 'GB' } } });
    try {
      expect((await british.agents.dave.phone.getNumber()).phone_number).toMatch(/^\+44/);
    } finally {
      await british.close();
    }
    const attempt = createTestWorld({ agents: { carol: { phone_country: 'XX' } } });
    await expect(attempt).rejects.toBeInstanceOf(ApiError);
    await expect(attempt).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(createTestWorld({ agents: { admin: {} } })).rejects.toMatchObject({ status: 400 });
  });
});

describe('waitFor', () => {
  it('moves the clock until a matching event after the call and answers it', async () => {
    const world = await createTestWorld({ agents: { alice: { balances: { usdc: '50' } } } });
    try {
      const sent = await world.agents.alice.wallet.send({ to: EVM, amount: '1', asset: 'usdc', network: 'ethereum' });
      expect(sent.status).toBe('pending');
      const event = await world.waitFor('wallet.transaction.updated', (candidate) => candidate.data.transaction_id === sent.transaction_id);
      expect(event.data).toMatchObject({ transaction_id: sent.transaction_id, status: 'confirmed' });
      // Ethereum confirms after 24 s of service time; the clock moved in 1 s steps, so it stopped there.
      expect((await world.sim.getClock()).now).toBe('2026-01-01T00:00:24.000Z');
      expect((await world.agents.alice.wallet.getTransaction(sent.transaction_id)).status).toBe('confirmed');
    } finally {
      await world.close();
    }
  });

  it('ignores events from before the call', async () => {
    const world = await createTestWorld({ agents: { alice: {} } });
    try {
      await expect(world.waitFor('agent.created', undefined, { maxSeconds: 3 })).rejects.toThrow(/no matching event within 3 s/);
    } finally {
      await world.close();
    }
  });

  it('throws past maxSeconds of service time, listing the last 20 events readably', async () => {
    const world = await createTestWorld({ agents: { alice: { balances: { usd: '100' } }, bob: {} } });
    try {
      for (let i = 0; i < 25; i++) await world.agents.alice.memory.create({ content: `note ${i}` });
      const error = (await world.waitFor('email.received', undefined, { maxSeconds: 90, stepSeconds: 30 }).catch((caught: unknown) => caught)) as Error;
      expect(error).toBeInstanceOf(Error);
      const lines = error.message.split('\n');
      expect(lines[0]).toBe('waitFor("email.received"): no matching event within 90 s of service time; the last events were:');
      expect(lines).toHaveLength(21);
      expect(lines[20]).toMatch(/^ {2}#\d+ 2026-01-01T00:00:00\.000Z memory\.created agent=\S+ \{.*\}$/);
      expect((await world.sim.getClock()).now).toBe('2026-01-01T00:01:30.000Z');
    } finally {
      await world.close();
    }
  });

  it('refuses a bad step or limit, and a type the event log never holds (at once, not after the wait)', async () => {
    const world = await createTestWorld();
    try {
      await expect(world.waitFor('agent.created', undefined, { stepSeconds: 0 })).rejects.toThrow(RangeError);
      await expect(world.waitFor('agent.created', undefined, { maxSeconds: -1 })).rejects.toThrow(RangeError);
      // @ts-expect-error a type the catalog does not declare does not compile
      await expect(world.waitFor('wallet.transaction.confirmed')).rejects.toThrow(/"wallet.transaction.confirmed" is not an event type of the log/);
      // delivered to webhooks only (logged as wallet.transaction.created): not a type of the log either
      // @ts-expect-error
      await expect(world.waitFor('wallet.transaction.received')).rejects.toThrow(RangeError);
      expect((await world.sim.getClock()).now).toBe('2026-01-01T00:00:00.000Z');
    } finally {
      await world.close();
    }
  });
});

describe('loadFixture', () => {
  const shop = async () => {
    const world = await createTestWorld({ seed: 9, agents: { shop: { balances: { usd: '500' } }, buyer: { balances: { usd: '20' } } } });
    await world.agents.shop.memory.uploadFile({ filename: 'menu.txt', content_type: 'text/plain', data: new TextEncoder().encode('tea 2.00\ncake 3.50\n') });
    await world.agents.buyer.wallet.send({ to: 'shop', amount: '2', asset: 'usd', memo: 'tea' });
    return world;
  };

  it('builds once, then hands out fresh independent worlds restored from the snapshot', async () => {
    const first = await loadFixture(shop);
    // Changes to the first world after the build do not reach later ones.
    await first.agents.buyer.wallet.send({ to: 'shop', amount: '5', asset: 'usd' });
    const second = await loadFixture(shop);
    const third = await loadFixture(shop);
    try {
      expect(second.runtime).not.toBe(first.runtime);
      expect(second.keys).toEqual(first.keys);
      expect((await second.agents.buyer.wallet.getBalance()).fiat.usd).toBe('18.00');
      await second.agents.buyer.wallet.send({ to: 'shop', amount: '18', asset: 'usd' });
      expect((await second.agents.buyer.wallet.getBalance()).fiat.usd).toBe('0.00');
      expect((await third.agents.buyer.wallet.getBalance()).fiat.usd).toBe('18.00');
      const history = await third.agents.shop.wallet.listTransactions();
      expect(history.transactions.map((record) => record.memo)).toContain('tea');
      // File bytes come along without a copy, and a write in one world stays there.
      const files = await third.agents.shop.memory.listFiles();
      const download = await third.agents.shop.memory.downloadFile(files.files[0]!.file_id);
      expect(new TextDecoder().decode(download.bytes)).toBe('tea 2.00\ncake 3.50\n');
      await second.agents.shop.memory.uploadFile({ filename: 'extra.txt', content_type: 'text/plain', data: new TextEncoder().encode('only in the second world') });
      expect((await third.agents.shop.memory.listFiles()).total).toBe(1);
      expect((await second.agents.shop.memory.listFiles()).total).toBe(2);
      // The same random state: the same calls on two restored worlds draw the same ids.
      const fourth = await loadFixture(shop);
      await third.agents.shop.memory.create({ content: 'x' });
      const [a, b] = await Promise.all([third.agents.shop.memory.create({ content: 'y' }), fourth.agents.shop.memory.create({ content: 'x' }).then(() => fourth.agents.shop.memory.create({ content: 'y' }))]);
      expect(a.memory_id).toBe(b.memory_id);
      await fourth.close();
    } finally {
      await Promise.all([first.close(), second.close(), third.close()]);
    }
  });

  it('builds again after a build that threw, and refuses a world that is not a TestWorld', async () => {
    let attempts = 0;
    const flaky = async (): Promise<TestWorld<'solo'>> => {
      attempts += 1;
      if (attempts === 1) throw new Error('first build fails');
      return createTestWorld({ agents: { solo: {} } });
    };
    await expect(loadFixture(flaky)).rejects.toThrow('first build fails');
    const world = await loadFixture(flaky);
    expect(attempts).toBe(2);
    await world.close();
    const fake = async () => ({ ...(await createTestWorld()) });
    await expect(loadFixture(fake)).rejects.toThrow(/not a TestWorld/);
  });
});
