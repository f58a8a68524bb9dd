/**
 * A throwaway Postfix instance for the TLS figure of the SMTP ingest bench: Postfix's real `smtpd`
 * with `smtpd_tls_cert_file`/`smtpd_tls_key_file` (STARTTLS offered), every message queued by
 * `cleanup` and thrown away by the `discard` transport. It has its own `config_directory`,
 * `queue_directory` and `data_directory` under a temporary folder, listens on a free 127.0.0.1
 * port, and its `master` runs as root in the foreground (Postfix's daemons drop to `mail_owner`).
 * Nothing of the system's Postfix (if any) is touched: no /etc/postfix, no system queue, no users
 * created (`mail_owner = mail`, `setgid_group = nogroup`, `default_privs = daemon`, Debian's own).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

/** A running instance. */
export interface PostfixInstance {
  port: number;
  /** CPU microseconds the whole instance (master and every daemon, living or reaped) has used so far. */
  cpu(): number;
  stop(): Promise<void>;
}

/** Postfix's queue folders, as `postfix-files` lists them: [name, mode]; owned by mail_owner. */
const QUEUE_DIRS: Array<[string, number]> = [
  ['active', 0o700],
  ['bounce', 0o700],
  ['corrupt', 0o700],
  ['defer', 0o700],
  ['deferred', 0o700],
  ['flush', 0o700],
  ['hold', 0o700],
  ['incoming', 0o700],
  ['private', 0o700],
  ['saved', 0o700],
  ['trace', 0o700],
  ['maildrop', 0o730],
  ['public', 0o710],
];

/** The services a queue-and-discard instance needs (master.cf rows after the smtpd one). */
const SERVICES = `cleanup   unix  n - n - 0 cleanup
qmgr      unix  n - n 300 1 qmgr
tlsmgr    unix  - - n 1000? 1 tlsmgr
rewrite   unix  - - n - - trivial-rewrite
bounce    unix  - - n - 0 bounce
defer     unix  - - n - 0 bounce
trace     unix  - - n - 0 bounce
verify    unix  - - n - 1 verify
flush     unix  n - n 1000? 0 flush
proxymap  unix  - - n - - proxymap
anvil     unix  - - n - 1 anvil
scache    unix  - - n - 1 scache
discard   unix  - - n - - discard
error     unix  - - n - - error
retry     unix  - - n - - error
postlog   unix-dgram n - n - 1 postlogd
`;

/** Why an instance cannot be started here, or null when it can. */
export function postfixInstanceUnavailable(daemonDir: string): string | null {
  if (userInfo().uid !== 0) return "Postfix's master must start as root (it drops to mail_owner); the bench is not running as root";
  if (!existsSync(join(daemonDir, 'master')) || !existsSync(join(daemonDir, 'smtpd'))) return `no Postfix daemons in ${daemonDir}`;
  for (const user of ['mail', 'daemon']) {
    try {
      execFileSync('id', [user], { stdio: 'ignore' });
    } catch {
      return `no system user ${user} for mail_owner/default_privs`;
    }
  }
  return null;
}

/** A free loopback port (listened on and released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** Clock ticks per second of /proc's times (USER_HZ; 100 on Linux). */
const TICK_US = 1_000_000 / 100;

/** utime + stime (+ the reaped children's cutime + cstime with `reaped`) of a process, in µs; 0 once gone. */
function timesOf(pid: number, reaped: boolean): { us: number; ppid: number } {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    // The fields after the command name (which may hold spaces) in parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]) + (reaped ? Number(fields[13]) + Number(fields[14]) : 0);
    return { us: ticks * TICK_US, ppid: Number(fields[1]) };
  } catch {
    return { us: 0, ppid: -1 };
  }
}

/** CPU of `master` and its children: the living ones read from /proc, the exited ones from master's reaped-children total. */
function treeCpu(master: number): number {
  let total = timesOf(master, true).us;
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === master) continue;
    const { us, ppid } = timesOf(pid, false);
    if (ppid === master) total += us;
  }
  return total;
}

/**
 * Starts a Postfix instance from `daemonDir` (e.g. /usr/lib/postfix/sbin) accepting mail for
 * `domain` (relayed to `discard`), with STARTTLS from `cert`/`key` (PEM). `libs` is put on
 * LD_LIBRARY_PATH for an unpacked package. Ready once its smtpd answers.
 */
export async function startPostfixInstance(options: { daemonDir: string; commandDir: string; libs?: string; domain: string; cert: string; key: string }): Promise<PostfixInstance> {
  const root = mkdtempSync(join(tmpdir(), 'postfix-bench-'));
  // Postfix's daemons run as mail_owner and must reach the queue below.
  chmodSync(root, 0o755);
  const etc = join(root, 'etc');
  const queue = join(root, 'queue');
  const data = join(root, 'data');
  for (const dir of [etc, queue, data]) mkdirSync(dir, { mode: 0o755 });
  writeFileSync(join(etc, 'smtpd.crt'), options.cert);
  writeFileSync(join(etc, 'smtpd.key'), options.key, { mode: 0o600 });
  const mail = Number(execFileSync('id', ['-u', 'mail']).toString());
  const nogroup = Number(execFileSync('getent', ['group', 'nogroup']).toString().split(':')[2]);
  for (const [name, mode] of QUEUE_DIRS) {
    mkdirSync(join(queue, name));
    chownSync(join(queue, name), mail, nogroup);
    chmodSync(join(queue, name), mode);
  }
  mkdirSync(join(queue, 'pid'));
  chownSync(data, mail, nogroup);
  const port = await freePort();
  writeFileSync(
    join(etc, 'main.cf'),
    `compatibility_level = 3.6
mail_owner = mail
setgid_group = nogroup
default_privs = daemon
queue_directory = ${queue}
data_directory = ${data}
daemon_directory = ${options.daemonDir}
command_directory = ${options.commandDir}
meta_directory = ${etc}
import_environment = MAIL_CONFIG MAIL_DEBUG MAIL_LOGTAG TZ LANG=C LD_LIBRARY_PATH
maillog_file = ${join(root, 'maillog')}
maillog_file_prefixes = ${root}
myhostname = mx.bench.test
mydomain = bench.test
mydestination =
relay_domains = ${options.domain}
relay_recipient_maps =
mynetworks = 127.0.0.0/8
inet_protocols = ipv4
default_transport = discard
relay_transport = discard
smtpd_peername_lookup = no
smtpd_tls_cert_file = ${join(etc, 'smtpd.crt')}
smtpd_tls_key_file = ${join(etc, 'smtpd.key')}
smtpd_tls_security_level = may
smtpd_tls_session_cache_database =
smtpd_tls_loglevel = 0
default_process_limit = 200
smtpd_client_connection_count_limit = 0
smtpd_client_connection_rate_limit = 0
smtpd_client_message_rate_limit = 0
in_flow_delay = 0
biff = no
`,
  );
  writeFileSync(join(etc, 'master.cf'), `127.0.0.1:${port} inet n - n - 100 smtpd\n${SERVICES}`);
  // -d: stay in the foreground (no detach), so the bench owns the process and can end it.
  const master: ChildProcess = spawn(join(options.daemonDir, 'master'), ['-c', etc, '-d'], {
    cwd: root,
    stdio: 'ignore',
    env: { ...process.env, MAIL_CONFIG: etc, ...(options.libs ? { LD_LIBRARY_PATH: options.libs } : {}) },
  });
  /** Ends master (its daemons end with it), then removes the folder. */
  const stop = async () => {
    if (master.exitCode === null && master.signalCode === null) {
      const exited = new Promise((resolve) => master.once('exit', resolve));
      master.kill('SIGTERM');
      const timer = setTimeout(() => master.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(root, { recursive: true, force: true });
  };
  for (let i = 0; i < 200; i++) {
    const banner = await new Promise<string | null>((resolve) => {
      const socket = connect({ port, host: '127.0.0.1' });
      socket.once('data', (chunk) => (socket.destroy(), resolve(chunk.toString())));
      socket.once('error', () => resolve(null));
    });
    if (banner?.startsWith('220')) return { port, cpu: () => treeCpu(master.pid!), stop };
    if (master.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const log = existsSync(join(root, 'maillog')) ? readFileSync(join(root, 'maillog'), 'utf8').slice(-2000) : 'none';
  await stop();
  throw new Error(`Postfix master did not start (exit ${master.exitCode}); its log: ${log}`);
}
