/**
 * The TLS figure of the SMTP ingest bench. Postfix's `smtp-source` and `smtp-sink` (3.7) speak no
 * TLS, so the load comes from the bench's own client (./smtp-tls-source.ts, one connection per
 * message like `smtp-source`, in a child of its own), and the Postfix side is a real `smtpd` with
 * `smtpd_tls_cert_file`/`smtpd_tls_key_file` in a throwaway instance (./postfix-instance.ts, same
 * RSA 2048 certificate; it queues each message and discards it). Per round, both with STARTTLS (a
 * full TLS 1.3 handshake per message) and both in clear with the same client, each with its CPU per
 * message. Without a Postfix instance (not root, no daemons), `smtp-sink` in clear stands beside
 * the listener for scale, as before.
 */
import { readFileSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import { tlsSourceInChild, type TlsSourceRun } from './smtp-tls-source.js';
import type { PostfixInstance } from './postfix-instance.js';

/** What the TLS part measures against. */
export interface TlsComparison {
  /** The listener child (offering STARTTLS) and its port. */
  listener: { child: ChildProcess; port: number };
  /** A Postfix smtpd instance with TLS, or null (then `sinkPort` is used for scale). */
  postfix: PostfixInstance | null;
  /** `smtp-sink`'s port, or null without Postfix's tools. */
  sinkPort: number | null;
  sessionCounts: number[];
  messages: number;
  rounds: number;
  /** CPU microseconds a child has used so far. */
  cpuOf(child: ChildProcess): Promise<number>;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const format = (value: number) => Math.round(value).toLocaleString('en');

type Run = { rate: number; cpu: number };

/** Prints, per session count, the listener and Postfix's smtpd with and without STARTTLS (or smtp-sink in clear for scale). */
export async function tlsComparison(setup: TlsComparison): Promise<void> {
  const ca = readFileSync(new URL('../test/providers/mail/fixtures/smtp-tls.crt', import.meta.url), 'utf8');
  const run = (port: number, sessions: number, messages: number, starttls: boolean): TlsSourceRun => ({ port, sessions, messages, bytes: 2048, starttls, ca, servername: 'mx.agents.test' });
  const { listener, postfix } = setup;
  const measure = async (port: number, cpu: () => Promise<number> | number, sessions: number, starttls: boolean): Promise<Run> => {
    const before = await cpu();
    const rate = await tlsSourceInChild(run(port, sessions, setup.messages, starttls));
    return { rate, cpu: ((await cpu()) - before) / 1000 / setup.messages };
  };
  const ofListener = () => setup.cpuOf(listener.child);
  // Warm-up of the TLS code and of the client (and of Postfix's daemons).
  await tlsSourceInChild(run(listener.port, 4, 300, true));
  if (postfix) await tlsSourceInChild(run(postfix.port, 4, 300, true));
  for (const sessions of setup.sessionCounts) {
    const sink: number[] = [];
    const runs = { smtpdClear: [] as Run[], smtpdTls: [] as Run[], clear: [] as Run[], tls: [] as Run[] };
    for (let round = 0; round < setup.rounds; round++) {
      if (postfix) {
        runs.smtpdClear.push(await measure(postfix.port, postfix.cpu, sessions, false));
        runs.smtpdTls.push(await measure(postfix.port, postfix.cpu, sessions, true));
      } else if (setup.sinkPort !== null) sink.push(await tlsSourceInChild(run(setup.sinkPort, sessions, setup.messages, false)));
      runs.clear.push(await measure(listener.port, ofListener, sessions, false));
      runs.tls.push(await measure(listener.port, ofListener, sessions, true));
    }
    const ratio = (a: Run[], b: Array<Run | number>) => median(a.map((entry, round) => entry.rate / (typeof b[round] === 'number' ? (b[round] as number) : (b[round] as Run).rate))).toFixed(2);
    const row = (label: string, entries: Run[], note: string) =>
      console.log(`    ${label.padEnd(30)} ${format(median(entries.map((entry) => entry.rate))).padStart(6)} msg/s ${median(entries.map((entry) => entry.cpu)).toFixed(3)} ms CPU/msg${note}`);
    console.log(`TLS: the bench's client, -s ${sessions} -m ${setup.messages}, 2 KiB, one connection per message (median of ${setup.rounds} interleaved rounds)`);
    if (postfix) {
      row('Postfix smtpd, clear', runs.smtpdClear, ' (whole instance: smtpd, cleanup, qmgr, discard...)');
      row('Postfix smtpd, STARTTLS', runs.smtpdTls, `   ${ratio(runs.smtpdTls, runs.smtpdClear)}x of its clear`);
      row('listener, clear', runs.clear, `   ${ratio(runs.clear, runs.smtpdClear)}x of smtpd in clear`);
      row('listener, STARTTLS', runs.tls, `   ${ratio(runs.tls, runs.clear)}x of its clear; ${ratio(runs.tls, runs.smtpdTls)}x of smtpd with STARTTLS`);
    } else {
      if (sink.length > 0) console.log(`    ${'smtp-sink (no TLS; scale)'.padEnd(30)} ${format(median(sink)).padStart(6)} msg/s`);
      row('listener, clear', runs.clear, '');
      row('listener, STARTTLS', runs.tls, `   ${ratio(runs.tls, runs.clear)}x of clear${sink.length > 0 ? `; ${ratio(runs.tls, sink)}x of smtp-sink in clear` : ''}`);
    }
  }
}
