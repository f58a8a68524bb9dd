// serve --data with mail queued for an outside relay, killed with SIGKILL and restarted: every
// message whose send was answered is delivered to the relay exactly once, none twice.
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_TEST_TIMEOUT_MS, kill, killAll, launch, waitForLine } from '../../cli/cli-process.js';
import { ensureBuilt } from '../../cli/ensure-built.js';

let dir: string;

beforeAll(async () => {
  await ensureBuilt();
  dir = mkdtempSync(path.join(os.tmpdir(), 'outbound-crash-'));
}, 300_000);

afterAll(() => {
  killAll();
  rmSync(dir, { recursive: true, force: true });
});

/** A relay that answers 451 until told to accept; counts the Message-IDs it accepted. */
async function relay(): Promise<{ port: number; accept: boolean; accepted: Map<string, number>; close(): Promise<void> }> {
  const state = { accept: false, accepted: new Map<string, number>() };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (!state.accept) return callback(Object.assign(new Error('4.3.0 try again later'), { responseCode: 451 }));
        const id = /^Message-ID:\s*(<[^>]+>)/im.exec(Buffer.concat(chunks).toString('utf8'))?.[1] ?? '?';
        state.accepted.set(id, (state.accepted.get(id) ?? 0) + 1);
        callback();
      });
    },
  });
  // A client that dies mid-conversation (the killed server) is no failure of the relay.
  server.on('error', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(state, {
    port: (server.server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

describe('serve --data with queued outbound mail, killed with SIGKILL', () => {
  it(
    'delivers every acknowledged message exactly once after the restart',
    async (t) => {
      const mta = await relay();
      const args = ['serve', '--port', '0', '--seed', '5', '--data', path.join(dir, 'world.db'), '--smtp-relay', `smtp://127.0.0.1:${mta.port}`];
      const first = launch(t, args);
      await waitForLine(first, /^listening on /m, 'first start');
      const url = /^listening on (\S+)$/m.exec(first.stdout())![1]!;
      const created = (await (await fetch(`${url}/_sim/agents`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'alice' }) })).json()) as { api_key: string };
      const send = async (n: number): Promise<string | null> => {
        try {
          const answer = await fetch(`${url}/v1/email/send`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${created.api_key}` },
            body: JSON.stringify({ to: [`ext${n}@example.com`, `copy${n}@example.org`], subject: `message ${n}`, text: 'queued' }),
          });
          return answer.status === 201 ? `<${((await answer.json()) as { message_id: string }).message_id}@agents.test>` : null;
        } catch {
          return null;
        }
      };
      const acknowledged: string[] = [];
      for (let n = 0; n < 5; n++) acknowledged.push((await send(n))!);
      // A burst from several clients, killed as soon as the first of it is answered: some are
      // acknowledged, some are cut off (those may be delivered or not, but never twice).
      let killed = false;
      const burst = Array.from({ length: 8 }, (_, i) =>
        send(5 + i).then((id) => {
          if (id) acknowledged.push(id);
          if (!killed) {
            killed = true;
            kill(first.child);
          }
          return id;
        }),
      );
      await Promise.all(burst);
      await first.closed;
      expect(mta.accepted.size).toBe(0);

      mta.accept = true;
      const second = launch(t, args);
      await waitForLine(second, /^listening on /m, 'restart');
      const url2 = /^listening on (\S+)$/m.exec(second.stdout())![1]!;
      // Every deferred message is due five minutes after its failed attempt.
      const advanced = await fetch(`${url2}/_sim/clock/advance`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ seconds: 300 }) });
      expect(advanced.status).toBe(200);
      const outbox = (await (await fetch(`${url2}/_sim/email/outbox`)).json()) as { messages: Array<{ headers: Record<string, string>; status: string; recipient_states: Array<{ state: string }> }> };

      expect(acknowledged.length).toBeGreaterThanOrEqual(6);
      for (const id of acknowledged) expect(mta.accepted.get(id), id).toBe(1);
      expect([...mta.accepted.values()].every((count) => count === 1)).toBe(true);
      const byId = new Map(outbox.messages.map((message) => [message.headers['Message-ID'], message]));
      for (const id of acknowledged) {
        expect(byId.get(id)?.status).toBe('sent');
        expect(byId.get(id)?.recipient_states.map((state) => state.state)).toEqual(['sent', 'sent']);
      }
      second.child.kill('SIGTERM');
      await second.closed;
      await mta.close();
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
