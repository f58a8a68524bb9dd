// Runs the built command line as a user would (a child `node` process), for the CLI tests and any
// test that needs a real server process. Waits are generous and end with a message that says what
// the process printed: the machine is two shared cores, and a slow start must read as "slow", not
// as a test timeout with no clue.
import { spawn, type ChildProcess } from 'node:child_process';
import type { TestContext } from 'vitest';
import { CLI, ROOT } from './ensure-built.js';

/** How long a server may take to print its ready line before the test fails saying so. */
export const READY_WAIT_MS = 180_000;
/** How long a command may run to completion before the test fails saying so. */
export const EXIT_WAIT_MS = 180_000;
/** A per-test time limit above every wait here, so the waits' messages are what a failure shows. */
export const CLI_TEST_TIMEOUT_MS = 600_000;

/** A running command. */
export interface CliProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (or signal) once the process and its pipes have closed. */
  closed: Promise<number | NodeJS.Signals | null>;
}

const children = new Set<ChildProcess>();

/** Kills a child that is still running. */
export function kill(child: ChildProcess): void {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

/** Kills every child still running (an afterAll backstop). */
export function killAll(): void {
  for (const child of children) kill(child);
}

/** Starts the built command with `args`; the process is killed when the test that started it ends. */
export function launch(t: TestContext, args: string[]): CliProcess {
  const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  t.onTestFinished(() => kill(child));
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const closed = new Promise<number | NodeJS.Signals | null>((resolve) =>
    child.once('close', (code, signal) => {
      children.delete(child);
      resolve(signal ?? code);
    }),
  );
  return { child, stdout: () => stdout, stderr: () => stderr, closed };
}

/** What the process printed so far, for failure messages. */
function transcript(run: CliProcess): string {
  return `--- stdout ---\n${run.stdout()}--- stderr ---\n${run.stderr()}`;
}

/**
 * Resolves once stdout holds a line matching `ready`; rejects when the process exits first, or
 * after `READY_WAIT_MS` with a message naming what it waited for and what was printed.
 */
export function waitForLine(run: CliProcess, ready: RegExp, what: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const done = (error?: Error) => {
      clearTimeout(timer);
      run.child.stdout!.off('data', check);
      if (error) reject(error);
      else resolve();
    };
    const check = () => {
      if (ready.test(run.stdout())) done();
    };
    timer = setTimeout(() => done(new Error(`${what}: no line matching ${ready} after ${READY_WAIT_MS / 1000} s (the machine may be overloaded)\n${transcript(run)}`)), READY_WAIT_MS);
    void run.closed.then((code) => done(new Error(`${what}: the process exited (${code}) before printing ${ready}\n${transcript(run)}`)));
    run.child.stdout!.on('data', check);
    check();
  });
}

/** Runs the command to completion (at most `EXIT_WAIT_MS`, then a failure saying so). */
export async function runToEnd(t: TestContext, args: string[]): Promise<{ code: number | NodeJS.Signals | null; stdout: string; stderr: string }> {
  const run = launch(t, args);
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      kill(run.child);
      reject(new Error(`agent-services ${args.join(' ')} did not exit within ${EXIT_WAIT_MS / 1000} s\n${transcript(run)}`));
    }, EXIT_WAIT_MS);
  });
  try {
    const code = await Promise.race([run.closed, limit]);
    return { code, stdout: run.stdout(), stderr: run.stderr() };
  } finally {
    clearTimeout(timer);
  }
}
