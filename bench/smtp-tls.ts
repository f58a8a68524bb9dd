/**
 * The TLS figure of the SMTP ingest bench. Postfix's `smtp-source` and `smtp-sink` (3.7) speak no
 * TLS, so the load comes from the bench's own client (./smtp-tls-source.ts, one connection per
 * message like `smtp-source`), run in a child of its own: the listener with STARTTLS (a full TLS 1.3
 * handshake per message, RSA 2048 certificate), the listener in clear with the same client, and,
 * for scale, `smtp-sink` (no TLS) with the same client when Postfix is installed.
 */
import { readFileSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import { tlsSourceInChild, type TlsSourceRun } from './smtp-tls-source.js';

/** What the TLS part measures against. */
export interface TlsComparison {
  /** The listener child (offering STARTTLS) and its port. */
  listener: { child: ChildProcess; port: number };
  /** `smtp-sink`'s port, or null without Postfix. */
  sinkPort: number | null;
  sessionCounts: number[];
  messages: number;
  rounds: number;
  /** CPU microseconds a child has used so far. */
  cpuOf(child: ChildProcess): Promise<number>;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const format = (value: number) => Math.round(value).toLocaleString('en');

/** Prints, per session count, the rates of the listener with and without STARTTLS, and smtp-sink's for scale. */
export async function tlsComparison(setup: TlsComparison): Promise<void> {
  const ca = readFileSync(new URL('../test/providers/mail/fixtures/smtp-tls.crt', import.meta.url), 'utf8');
  const run = (port: number, sessions: number, messages: number, starttls: boolean): TlsSourceRun => ({ port, sessions, messages, bytes: 2048, starttls, ca, servername: 'mx.agents.test' });
  const { listener } = setup;
  const measured = async (sessions: number, starttls: boolean) => {
    const before = await setup.cpuOf(listener.child);
    const rate = await tlsSourceInChild(run(listener.port, sessions, setup.messages, starttls));
    return { rate, cpu: ((await setup.cpuOf(listener.child)) - before) / 1000 / setup.messages };
  };
  // Warm-up of the TLS code and of the client.
  await tlsSourceInChild(run(listener.port, 4, 300, true));
  for (const sessions of setup.sessionCounts) {
    const sink: number[] = [];
    const clear: Array<{ rate: number; cpu: number }> = [];
    const secure: Array<{ rate: number; cpu: number }> = [];
    for (let round = 0; round < setup.rounds; round++) {
      if (setup.sinkPort !== null) sink.push(await tlsSourceInChild(run(setup.sinkPort, sessions, setup.messages, false)));
      clear.push(await measured(sessions, false));
      secure.push(await measured(sessions, true));
    }
    const ratio = median(secure.map((entry, round) => entry.rate / clear[round]!.rate));
    console.log(`TLS: the bench's client, -s ${sessions} -m ${setup.messages}, 2 KiB, one connection per message (median of ${setup.rounds} interleaved rounds)`);
    if (sink.length > 0) console.log(`    ${'smtp-sink (no TLS; scale)'.padEnd(30)} ${format(median(sink)).padStart(6)} msg/s`);
    console.log(`    ${'listener, clear'.padEnd(30)} ${format(median(clear.map((entry) => entry.rate))).padStart(6)} msg/s ${median(clear.map((entry) => entry.cpu)).toFixed(3)} ms CPU/msg`);
    const ofSink = sink.length > 0 ? `; ${median(secure.map((entry, round) => entry.rate / sink[round]!)).toFixed(2)}x of smtp-sink in clear` : '';
    console.log(
      `    ${'listener, STARTTLS'.padEnd(30)} ${format(median(secure.map((entry) => entry.rate))).padStart(6)} msg/s ${median(secure.map((entry) => entry.cpu)).toFixed(3)} ms CPU/msg   ${ratio.toFixed(2)}x of clear${ofSink}`,
    );
  }
}
