import { WORKDIR, type Engine, type EngineExit, type EngineRun } from './engine.js';
import { TreeFileSystem } from './tree-file-system.js';

type JustBash = typeof import('just-bash');

/**
 * just-bash's counting limits, lifted: real bash runs a loop of any length, so a run ends at its
 * own end or at the host's timeout (124), never at an interpreter's step count (which used to end
 * a 100,001-command script with 126). Time is bounded by the run's timeout and memory by the
 * worker's heap limit (137), which is what DECISIONS.md promises.
 */
const UNCOUNTED = {
  maxCommandCount: Number.POSITIVE_INFINITY,
  maxLoopIterations: Number.POSITIVE_INFINITY,
  maxAwkIterations: Number.POSITIVE_INFINITY,
  maxSedIterations: Number.POSITIVE_INFINITY,
  maxJqIterations: Number.POSITIVE_INFINITY,
  maxWorkUnits: Number.POSITIVE_INFINITY,
  maxGlobOperations: Number.POSITIVE_INFINITY,
  maxTraversalWork: Number.POSITIVE_INFINITY,
} as const;

/**
 * Bash scripts in just-bash, a bash interpreter written in TypeScript, over the run's tree. Its
 * size and depth limits stay on (call depth, string sizes); its step counts are lifted
 * ({@link UNCOUNTED}). It has no network (no fetch configured), no python3 and no js-exec; a fresh
 * interpreter object per run.
 */
export class BashEngine implements Engine {
  readonly runtime = 'bash' as const;
  private library: Promise<JustBash> | undefined;

  /** Loads the interpreter's code (once per worker). */
  prepare(): void {
    this.library ??= import('just-bash');
  }

  async ready(): Promise<void> {
    this.prepare();
    await this.library;
  }

  async run(run: EngineRun): Promise<EngineExit> {
    this.prepare();
    const { Bash } = await this.library!;
    if (!run.tree.get(WORKDIR)) run.tree.mkdir(WORKDIR, true);
    const bash = new Bash({
      fs: new TreeFileSystem(run.tree),
      cwd: WORKDIR,
      env: { HOME: WORKDIR, USER: 'agent', LOGNAME: 'agent', PATH: '/usr/local/bin:/usr/bin:/bin', SHELL: '/bin/bash', LANG: 'C.UTF-8', PWD: WORKDIR },
      python: false,
      // The worker already refuses every reachable function constructor for good (sandbox-worker.ts);
      // just-bash's own per-call patching of the same globals would collide with that.
      defenseInDepth: false,
      javascript: false,
      executionLimits: {
        ...UNCOUNTED,
        // The host cuts output at the cap (and says so); just-bash stops the script well past it.
        maxOutputSize: 2 * run.outputLimitBytes + 65_536,
        maxFileSystemBytes: Number.MAX_SAFE_INTEGER,
      },
    });
    const result = await bash.exec(run.code, { rawScript: true });
    run.write('stdout', result.stdout);
    run.write('stderr', result.stderr);
    return { exitCode: result.exitCode };
  }
}
