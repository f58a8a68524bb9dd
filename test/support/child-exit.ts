import type { ChildProcess } from 'node:child_process';

/**
 * The exit code of a spawned child once its output streams closed. A child that could not start
 * (`spawn` failing with EAGAIN on a machine out of processes, say) rejects at once instead of
 * leaving the test waiting for a close that never comes.
 */
export function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve, reject) => {
    child.once('close', resolve);
    child.once('error', reject);
  });
}
