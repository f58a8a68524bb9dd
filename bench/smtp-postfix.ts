/**
 * Part 0 of `npm run bench -- email`: Postfix's `smtp-source` against three receivers in the same
 * run, rounds interleaved:
 *
 * - `smtp-sink`, Postfix's fastest possible receiver (C; it stores nothing): the floor;
 * - a bare `node:net` SMTP responder (this file, role `floor`): fixed replies, the end of `DATA`
 *   found, nothing parsed or stored, the connection closed as the listener closes it. It is what
 *   Node itself costs per message on this machine, so the listener's distance from `smtp-sink`
 *   splits into Node's share and the listener's own;
 * - for scale, the same responder spinning a fixed CPU time per message before its 250 (role `busy`,
 *   `--floor-work-us N`, 50 by default, 0 leaves it out): what any receiver that does N µs of work
 *   per message reaches here. Its CPU per message grows by more than N: the busier a receiver, the
 *   more each of its socket calls costs (the client is less often already awake);
 * - the agent-services SMTP listener as users run it: the built package (`dist/`), in its own
 *   process (role `listener`), with an agent `bob` as the recipient.
 *
 * Each Node receiver runs in a child process (one core for it, one for `smtp-source`) and reports
 * its CPU time (`process.cpuUsage`) around each run, so that the CPU per message is its own.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect as connectTo, createServer, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { tlsComparison } from './smtp-tls.js';
import { freePort, postfixInstanceUnavailable, startPostfixInstance, type PostfixInstance } from './postfix-instance.js';

/**
 * Where Postfix's tools are: /usr/sbin, or `SMTP_POSTFIX_DIR` (e.g. the usr/sbin of a package
 * unpacked with `apt-get download postfix && dpkg -x`, whose libraries sit in ../lib/postfix).
 */
const POSTFIX_DIR = process.env.SMTP_POSTFIX_DIR ?? '/usr/sbin';
const SMTP_SOURCE = join(POSTFIX_DIR, 'smtp-source');
const SMTP_SINK = join(POSTFIX_DIR, 'smtp-sink');
const POSTFIX_LIBS = join(POSTFIX_DIR, '../lib/postfix');
/** Postfix's daemons (master, smtpd, ...), for the TLS figure's throwaway instance. */
const POSTFIX_DAEMONS = join(POSTFIX_LIBS, 'sbin');
/** The environment of a Postfix tool: an unpacked package's libraries found through LD_LIBRARY_PATH. */
const postfixEnv = () => (existsSync(POSTFIX_LIBS) && POSTFIX_DIR !== '/usr/sbin' ? { ...process.env, LD_LIBRARY_PATH: POSTFIX_LIBS } : process.env);
const ROLE = 'SMTP_BENCH_ROLE';

type Role = 'floor' | 'busy' | 'listener' | 'baseline';

/**
 * With `SMTP_BENCH_BASELINE` (the package root of another build, e.g. an earlier commit unpacked
 * with `git archive` and built), its listener runs too, in the same rounds: a before-and-after in
 * one run, on the same machine state.
 */
const BASELINE = process.env.SMTP_BENCH_BASELINE;

/**
 * Runs in a child: the least a Node SMTP receiver does for `smtp-source`, plus a spin of `workUs`
 * µs of CPU per message. Answers its port.
 */
function startFloor(workUs: number): Promise<number> {
  const work = () => {
    const until = performance.now() + workUs / 1000;
    while (workUs > 0 && performance.now() < until);
  };
  const ehlo = '250-floor.test\r\n250-PIPELINING\r\n250-8BITMIME\r\n250 SIZE 10485760\r\n';
  const server = createServer((socket: Socket) => {
    socket.setNoDelay(true);
    let partial = '';
    let inData = false;
    // The last bytes of the body read so far, so that an end marker cut between reads is found.
    let tail = '';
    socket.on('data', (chunk: Buffer) => {
      let text = chunk.toString('latin1');
      let out = '';
      while (text.length > 0) {
        if (inData) {
          const body = tail + text;
          const end = body.indexOf('\r\n.\r\n');
          if (end < 0) {
            tail = body.slice(-4);
            break;
          }
          inData = false;
          work();
          out += '250 2.0.0 Ok: queued\r\n';
          text = body.slice(end + 5);
          continue;
        }
        const lf = text.indexOf('\n');
        if (lf < 0) {
          partial += text;
          break;
        }
        const line = partial + text.slice(0, lf);
        partial = '';
        text = text.slice(lf + 1);
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'EHLO') out += ehlo;
        else if (verb === 'DATA') {
          out += '354 End data with <CR><LF>.<CR><LF>\r\n';
          inData = true;
          tail = '\r\n';
        } else if (verb === 'QUIT') {
          socket.write(`${out}221 2.0.0 Bye\r\n`);
          if (socket.writableLength === 0) socket.destroy();
          else socket.destroySoon();
          return;
        } else out += '250 2.0.0 Ok\r\n';
      }
      if (out !== '') socket.write(out);
    });
    socket.on('error', () => socket.destroy());
    socket.write('220 floor.test ESMTP\r\n');
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

/**
 * Runs in a child: the built runtime with an SMTP listener and an agent `bob`; it checks SPF, DKIM
 * and DMARC of every message against the bench's DNS server and offers STARTTLS with the test
 * certificate (RSA 2048). Answers its port.
 */
async function startListener(root = new URL('..', import.meta.url).href): Promise<number> {
  const { createRuntime } = (await import(new URL('dist/index.js', root.endsWith('/') ? root : `${root}/`).href)) as typeof import('../src/index.js');
  const data = process.env.SMTP_BENCH_DATA;
  const fixture = (name: string) => readFileSync(new URL(`../test/providers/mail/fixtures/${name}`, import.meta.url), 'utf8');
  const smtp = { port: 0, dnsServer: process.env.SMTP_BENCH_DNS!, tls: { cert: fixture('smtp-tls.crt'), key: fixture('smtp-tls.key') } };
  const runtime = await createRuntime({ seed: 1, email: { smtp }, ...(data ? { data } : {}) });
  await runtime.createAgent({ name: 'bob' });
  const [edge] = await runtime.listen();
  return edge!.port;
}

/** Runs inside a child: starts the receiver of `role`, prints its port, answers CPU-time requests. */
async function startTarget(role: Role): Promise<void> {
  const port = role === 'listener' ? await startListener() : role === 'baseline' ? await startListener(`file://${BASELINE}`) : await startFloor(role === 'busy' ? Number(process.env.SMTP_BENCH_WORK_US) : 0);
  process.on('message', () => process.send!(process.cpuUsage()));
  process.stdout.write(`${port}\n`);
}

/** A receiver child: its process and port. */
export interface Target {
  child: ChildProcess;
  port: number;
}

function spawnTarget(role: Role, data: string | undefined, workUs: number): Promise<Target> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url)], {
    env: { ...process.env, [ROLE]: role, SMTP_BENCH_WORK_US: String(workUs), ...(data ? { SMTP_BENCH_DATA: data } : {}) },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = /^(\d+)\n/m.exec(out);
      if (line) resolve({ child, port: Number(line[1]) });
    });
    child.once('exit', (code) => reject(new Error(`${role} target exited (${code}) before it listened`)));
  });
}

/** CPU microseconds (user + system) a target child has used so far. */
function cpuOf(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    child.once('message', (usage: NodeJS.CpuUsage) => resolve(usage.user + usage.system));
    child.send('cpu');
  });
}

/** Runs `smtp-source` to `port` and answers the messages per second it achieved (wall time of the whole run). */
function smtpSource(port: number, sessions: number, messages: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(SMTP_SOURCE, ['-s', String(sessions), '-m', String(messages), '-l', '2048', '-f', 'load@example.com', '-t', 'bob@agents.test', `127.0.0.1:${port}`], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: postfixEnv(),
    });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      const seconds = (performance.now() - started) / 1000;
      if (code === 0) resolve(messages / seconds);
      else reject(new Error(`smtp-source exited ${code}: ${stderr.trim()}`));
    });
  });
}

/** Starts `smtp-sink` on `port` (as nobody when run as root, which it refuses otherwise). */
async function startSink(port: number): Promise<ChildProcess> {
  const args = [...(process.getuid?.() === 0 ? ['-u', 'nobody'] : []), `127.0.0.1:${port}`, '1024'];
  const child = spawn(SMTP_SINK, args, { stdio: 'ignore', env: postfixEnv() });
  // Ready once it accepts a connection.
  for (let i = 0; i < 100; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = connectTo({ port, host: '127.0.0.1' });
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (up) return child;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill();
  throw new Error('smtp-sink did not start');
}

/** One `smtp-source` run against a Node target: its rate and the target's CPU ms per message. */
async function measured(target: Target, sessions: number, messages: number): Promise<{ rate: number; cpu: number }> {
  const before = await cpuOf(target.child);
  const rate = await smtpSource(target.port, sessions, messages);
  return { rate, cpu: ((await cpuOf(target.child)) - before) / 1000 / messages };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const format = (value: number) => Math.round(value).toLocaleString('en');

/**
 * Postfix's `smtp-source` against `smtp-sink`, the bare Node responder and the listener, for each
 * session count: medians of `rounds` interleaved rounds; each ratio is the median of the rounds'
 * own ratios (the runs of one round are next to each other in time, so they share the machine's
 * state). With `dataParent` the listener's world is a durable one (SQLite) in a fresh folder under
 * it, removed afterwards: a 250 then waits for the commit on disk.
 */
export async function postfixComparison(
  messages: number,
  sessionCounts: number[],
  rounds: number,
  dataParent: string | undefined,
  workUs: number,
  parts: { clear: boolean; tls: boolean; tlsMessages: number } = { clear: true, tls: true, tlsMessages: 1000 },
): Promise<void> {
  const postfix = existsSync(SMTP_SOURCE) && existsSync(SMTP_SINK);
  if (!postfix)
    console.log(`smtp-source vs smtp-sink: skipped, Postfix's tools are not installed (${SMTP_SOURCE}, ${SMTP_SINK}; Debian package postfix, or SMTP_POSTFIX_DIR); the TLS figures below have no smtp-sink beside them`);
  const { ensureBuilt } = await import('../test/cli/ensure-built.js');
  await ensureBuilt();
  // The listener checks SPF, DKIM and DMARC of every message: its DNS answers come from here, as a
  // mail server's come from a resolver next to it. smtp-source's sender passes SPF; p=none.
  const { startDnsServer } = await import('../test/support/dns-server.js');
  const dns = await startDnsServer({ 'example.com': { TXT: ['v=spf1 ip4:127.0.0.1 -all'] }, '_dmarc.example.com': { TXT: ['v=DMARC1; p=none'] } });
  process.env.SMTP_BENCH_DNS = dns.address;
  const folder = dataParent === undefined ? undefined : mkdtempSync(join(dataParent, 'email-bench-'));
  const data = folder === undefined ? undefined : join(folder, 'world.db');
  if (data) console.log(`durable world (SQLite): ${data}`);
  const roles: Role[] = postfix ? ['floor', ...(workUs > 0 ? (['busy'] as const) : []), ...(BASELINE ? (['baseline'] as const) : []), 'listener'] : ['listener'];
  const started = await Promise.allSettled(roles.map((role) => spawnTarget(role, data, workUs)));
  const failed = started.find((outcome) => outcome.status === 'rejected');
  if (failed) {
    // No child is left running when one of them could not start.
    for (const outcome of started) if (outcome.status === 'fulfilled') outcome.value.child.kill('SIGKILL');
    if (folder) rmSync(folder, { recursive: true, force: true });
    await dns.close();
    throw failed.reason;
  }
  const targets = Object.fromEntries(roles.map((role, index) => [role, (started[index] as PromiseFulfilledResult<Target>).value])) as Partial<Record<Role, Target>>;
  const sinkPort = postfix ? await freePort() : null;
  const sink = sinkPort === null ? null : await startSink(sinkPort);
  let instance: PostfixInstance | null = null;
  try {
    if (sinkPort !== null && parts.clear) await smtpSourceRows(targets, roles, sinkPort, sessionCounts, messages, rounds, workUs);
    if (parts.tls) {
      instance = await postfixWithTls();
      await tlsComparison({ listener: targets.listener!, postfix: instance, sinkPort, sessionCounts, messages: parts.tlsMessages, rounds, cpuOf });
    }
  } finally {
    await instance?.stop();
    sink?.kill();
    for (const role of roles) targets[role]!.child.kill('SIGKILL');
    if (folder) rmSync(folder, { recursive: true, force: true });
    await dns.close();
  }
}

/** A throwaway Postfix smtpd with STARTTLS (the bench's certificate), or null with the reason printed. */
async function postfixWithTls(): Promise<PostfixInstance | null> {
  const unavailable = postfixInstanceUnavailable(POSTFIX_DAEMONS);
  if (unavailable) {
    console.log(`Postfix smtpd with TLS: skipped, ${unavailable}; smtp-sink in clear stands beside the TLS figures for scale`);
    return null;
  }
  const fixture = (name: string) => readFileSync(new URL(`../test/providers/mail/fixtures/${name}`, import.meta.url), 'utf8');
  return startPostfixInstance({
    daemonDir: POSTFIX_DAEMONS,
    commandDir: POSTFIX_DIR,
    ...(POSTFIX_DIR !== '/usr/sbin' ? { libs: POSTFIX_LIBS } : {}),
    domain: 'agents.test',
    cert: fixture('smtp-tls.crt'),
    key: fixture('smtp-tls.key'),
  });
}

/** The smtp-source part: each receiver against smtp-sink, rounds interleaved. */
async function smtpSourceRows(targets: Partial<Record<Role, Target>>, roles: Role[], sinkPort: number, sessionCounts: number[], messages: number, rounds: number, workUs: number): Promise<void> {
  // Warm-up: the JIT and mailparser's first load are not what is measured. V8 was still
  // optimizing the listener's code after 600 messages (a few hundred compilations during the next
  // 20,000), which the first rows (one session) paid; after a run's worth it has settled.
  for (const role of roles) await smtpSource(targets[role]!.port, 16, Math.max(600, messages));
  for (const sessions of sessionCounts) {
    const sinkRates: number[] = [];
    const runs: Record<Role, Array<{ rate: number; cpu: number }>> = { floor: [], busy: [], listener: [], baseline: [] };
    for (let round = 0; round < rounds; round++) {
      sinkRates.push(await smtpSource(sinkPort, sessions, messages));
      for (const role of roles) runs[role].push(await measured(targets[role]!, sessions, messages));
    }
    const ofSink = (role: Role) => median(runs[role].map((run, round) => run.rate / sinkRates[round]!));
    const ofFloor = median(runs.listener.map((run, round) => run.rate / runs.floor[round]!.rate));
    const row = (label: string, role: Role, note: string) =>
      console.log(
        `    ${label.padEnd(26)} ${format(median(runs[role].map((run) => run.rate))).padStart(6)} msg/s ${median(runs[role].map((run) => run.cpu)).toFixed(3)} ms CPU/msg   ${ofSink(role).toFixed(2)}x of smtp-sink${note}`,
      );
    console.log(`smtp-source -s ${sessions} -m ${messages} -l 2048 (median of ${rounds} interleaved rounds)`);
    console.log(`    ${'smtp-sink (Postfix)'.padEnd(26)} ${format(median(sinkRates)).padStart(6)} msg/s`);
    row('bare node:net responder', 'floor', " (Node's own floor here)");
    if (workUs > 0) row(`responder + ${workUs} µs CPU/msg`, 'busy', ' (scale)');
    if (BASELINE) row('baseline listener', 'baseline', ` (${BASELINE})`);
    row('agent-services listener', 'listener', ` (goal >= 0.5x); ${ofFloor.toFixed(2)}x of the Node floor`);
  }
}

if (process.env[ROLE]) await startTarget(process.env[ROLE] as Role);
