// A PostgreSQL server of its own for a test run or a benchmark: a fresh cluster in a temporary
// directory on a free port, stopped and removed afterwards. Debian's `postgresql` package puts
// the binaries in /usr/lib/postgresql/<version>/bin; `initdb` refuses to run as root, so as root
// the cluster belongs to the `postgres` user and every command runs through `runuser`.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** A running throwaway server. */
export interface ThrowawayPostgres {
  /** `postgres://postgres@127.0.0.1:PORT/postgres` */
  url: string;
  /** A URL of the same server naming another database. */
  urlOf(database: string): string;
  /** Stops the server and removes its directory. */
  stop(): void;
  /** Stops the server, keeping its data (a database that goes away). */
  halt(): void;
  /** Starts a halted server again on the same port. */
  restart(): void;
}

/** Why no server can be started here, or undefined when one can. */
export function postgresUnavailableReason(): string | undefined {
  if (!binDir()) return 'PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb; apt-get install -y postgresql)';
  if (process.getuid?.() === 0 && spawnSync('id', ['-u', 'postgres']).status !== 0) return 'running as root and there is no postgres user to own the cluster';
  return undefined;
}

/** The newest installed server's binaries, if any. */
function binDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((name) => existsSync(path.join(root, name, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : path.join(root, versions[0], 'bin');
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts a cluster. `durable: false` (tests) turns fsync off; benchmarks keep PostgreSQL's
 * defaults so a commit costs what it costs in production.
 * @throws Error naming the command that failed and its output
 */
export async function startThrowawayPostgres(options: { durable?: boolean; settings?: readonly string[] } = {}): Promise<ThrowawayPostgres> {
  const bin = binDir();
  if (!bin) throw new Error(postgresUnavailableReason());
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'agent-services-pg-'));
  const data = path.join(dir, 'data');
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(dir, uid, gid);
  }
  chmodSync(dir, 0o700);
  const run = (command: string, args: string[]) => {
    const full = path.join(bin, command);
    const result = asRoot ? spawnSync('runuser', ['-u', 'postgres', '--', full, ...args], { encoding: 'utf8' }) : spawnSync(full, args, { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${result.stderr || result.stdout || result.error?.message}`);
  };
  const port = await freePort();
  const settings = [
    `-p ${port}`,
    `-k ${dir}`,
    '-c listen_addresses=127.0.0.1',
    '-c max_connections=300',
    ...(options.durable ? [] : ['-c fsync=off', '-c synchronous_commit=off', '-c full_page_writes=off']),
    ...(options.settings ?? []).map((setting) => `-c ${setting}`),
  ];
  try {
    run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync', '--no-instructions']);
    run('pg_ctl', ['-D', data, '-l', path.join(dir, 'log'), '-w', '-t', '60', '-o', settings.join(' '), 'start']);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const urlOf = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  let stopped = false;
  return {
    url: urlOf('postgres'),
    urlOf,
    halt: () => run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']),
    restart: () => run('pg_ctl', ['-D', data, '-l', path.join(dir, 'log'), '-w', '-t', '60', '-o', settings.join(' '), 'start']),
    stop: () => {
      if (stopped) return;
      stopped = true;
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
