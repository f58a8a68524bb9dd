/** The compute behaviour and isolation tests, written once and run against every sandbox. */
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/core/ports/sandbox.js';
import { bearer, expectErrorResponse, jsonInit, openRawWorld, type TestAgent, type World } from '../support/transports.js';
import type { SandboxKind } from './compute-sandboxes.js';

const CANARY = 'compute-canary-7f3a91';
const MEMORY_LIMIT = 128 * 1024 ** 2;
const b64 = (text: string) => Buffer.from(text).toString('base64');

/** One Python run that tries every known escape; a line `<section>: ...` is printed only on success. */
const PYTHON_PROBES = String.raw`
import os, gc, sys
for p in ["/etc/passwd", "/proc/self/environ", "../../../../etc/passwd", "/home/agent/../../etc/passwd"]:
    try:
        text = open(p).read()
        if "root:" in text or "COMPUTE_CANARY" in text:
            print("file:", p)
    except Exception:
        pass
if "COMPUTE_CANARY" in os.environ or any("canary" in v for v in os.environ.values()):
    print("env:", dict(os.environ))
try:
    os.symlink("/etc/passwd", "/home/agent/plink")
    if "root:" in open("/home/agent/plink").read():
        print("link: followed")
except Exception:
    pass
for name in ["js", "pyodide_js", "pyodide.ffi", "pyodide.code", "_pyodide_core", "pyodide"]:
    try:
        __import__(name)
        print("ffi: imported", name)
    except ImportError:
        pass
for o in gc.get_objects():
    if type(o).__name__.startswith("Js"):
        try:
            p = o.constructor.constructor("return globalThis.process")()
            print("ffi: escaped", p)
        except Exception:
            pass
import socket
try:
    socket.create_connection(("127.0.0.1", PORT), timeout=2)
    print("net: connected")
except Exception:
    pass
try:
    import urllib.request
    urllib.request.urlopen("http://127.0.0.1:PORT/", timeout=2)
    print("net: fetched")
except Exception:
    pass
# Last: taking the first import finder away may break every later import.
try:
    sys.meta_path.pop(0)
    import js
    print("ffi: restored js", js)
except Exception:
    pass
print("end")
`;

interface Run {
  stdout: string;
  stderr: string;
  exit_code: number;
  duration_ms: number;
}

/** Opens the behaviour suite for one sandbox kind. */
export function computeRunSuite(kind: SandboxKind): void {
  describe.skipIf(kind.skip)(`compute runs (${kind.name} sandbox)${kind.skip ? `: skipped, ${kind.skip}` : ''}`, () => {
    let sandbox: Sandbox;
    let world: World;
    let alice: TestAgent;
    let bob: TestAgent;
    let listener: Server;
    let port = 0;
    let connections = 0;

    const run = async (agent: TestAgent, runtime: string, code: string, timeout_seconds = 30): Promise<Run> => {
      const response = await world.raw('/v1/compute/run', jsonInit('POST', { runtime, code, timeout_seconds }, bearer(agent.api_key)));
      expect(response.status, await response.clone().text()).toBe(200);
      return (await response.json()) as Run;
    };
    const readFile = async (agent: TestAgent, path: string) => world.raw(`/v1/compute/fs/content?path=${encodeURIComponent(path)}`, jsonInit('GET', undefined, bearer(agent.api_key)));

    beforeAll(async () => {
      process.env.COMPUTE_CANARY = CANARY;
      listener = createServer((socket) => {
        connections++;
        socket.destroy();
      });
      await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
      port = (listener.address() as { port: number }).port;
      sandbox = kind.create(MEMORY_LIMIT);
      (sandbox as { warm?: (runtimes: string[]) => void }).warm?.(['python', 'typescript', 'bash']);
      world = await openRawWorld('fetch', { seed: 7, providers: { sandbox }, compute: { memoryLimitBytes: MEMORY_LIMIT } });
      alice = await world.newAgent('alice');
      bob = await world.newAgent('bob');
    }, 180_000);
    afterAll(async () => {
      await world?.close();
      await sandbox?.close();
      listener?.close();
      delete process.env.COMPUTE_CANARY;
    });

    describe('results and exit codes', () => {
      it.each([
        ['python', 'print("hello from python")', 'hello from python\n'],
        ['typescript', 'const who: string = "typescript"; console.log(`hello from ${who}`)', 'hello from typescript\n'],
        ['bash', 'echo "hello from bash"', 'hello from bash\n'],
      ])(
        'runs %s and answers its stdout with exit 0',
        async (runtime, code, stdout) => {
          const result = await run(alice, runtime, code);
          expect(result).toMatchObject({ stdout, stderr: '', exit_code: 0 });
          expect(Number.isInteger(result.duration_ms)).toBe(true);
        },
        120_000,
      );

      it.each([
        ['python', 'import sys\nsys.exit(4)', 4],
        ['typescript', 'process.exit(3)', 3],
        ['bash', 'exit 5', 5],
      ])(
        '%s: an explicit exit gives its code',
        async (runtime, code, exit) => {
          expect((await run(alice, runtime, code)).exit_code).toBe(exit);
        },
        120_000,
      );

      it('an uncaught exception or traceback gives 1 with the message in stderr', async () => {
        const py = await run(alice, 'python', 'def f():\n    raise ValueError("boom")\nf()');
        expect(py.exit_code).toBe(1);
        expect(py.stderr).toMatch(/Traceback[\s\S]*ValueError: boom/);
        const ts = await run(alice, 'typescript', 'throw new Error("kaboom")');
        expect(ts.exit_code).toBe(1);
        expect(ts.stderr).toContain('kaboom');
      }, 120_000);

      it('typescript imports anything outside the documented modules with exit 1 and a clear message', async () => {
        const result = await run(alice, 'typescript', 'import { execSync } from "node:child_process"; console.log(execSync)');
        expect(result.exit_code).toBe(1);
        expect(result.stderr).toMatch(/node:child_process.*not available|Cannot import 'node:child_process'/);
      });

      it('typescript has top-level await, process.argv [] and process.env {}', async () => {
        const result = await run(alice, 'typescript', 'await new Promise((r) => setTimeout(r, 10)); console.log(JSON.stringify([process.argv, process.env]))');
        expect(result).toMatchObject({ stdout: '[[],{}]\n', exit_code: 0 });
      });

      it('refuses a bad body with 400 invalid_request', async () => {
        for (const body of [
          { runtime: 'ruby', code: 'puts 1' },
          { runtime: 'bash', code: '' },
          { runtime: 'bash', code: 'true', timeout_seconds: 0 },
          { runtime: 'bash', code: 'true', timeout_seconds: 301 },
          { runtime: 'bash', code: 'true', timeout_seconds: 1.5 },
        ]) {
          await expectErrorResponse(await world.raw('/v1/compute/run', jsonInit('POST', body, bearer(alice.api_key))), 400, 'invalid_request');
        }
      });
    });

    describe('the persistent filesystem', () => {
      it.each([
        ['python', 'import os\nprint(os.getcwd(), open("/shared/in.txt").read())\nopen("from-python.txt", "w").write("py")'],
        ['typescript', 'import fs from "node:fs"; console.log(process.cwd(), fs.readFileSync("/shared/in.txt", "utf8")); fs.writeFileSync("from-typescript.txt", "ts")'],
        ['bash', 'echo "$(pwd) $(cat /shared/in.txt)"; printf bash > from-bash.txt'],
      ])(
        '%s reads files written through the API and its writes are kept',
        async (runtime, code) => {
          await world.raw('/v1/compute/fs', jsonInit('PUT', { path: '/shared/in.txt', content: b64('shared') }, bearer(alice.api_key)));
          const result = await run(alice, runtime, code);
          expect(result).toMatchObject({ stdout: '/home/agent shared\n', exit_code: 0 });
          const file = await readFile(alice, `/home/agent/from-${runtime}.txt`);
          expect(file.status).toBe(200);
          expect(((await file.json()) as { content: string }).content).toBe(b64(runtime === 'python' ? 'py' : runtime === 'typescript' ? 'ts' : 'bash'));
        },
        120_000,
      );

      it('a file written by one runtime is read by the others on a later run', async () => {
        await run(alice, 'bash', 'mkdir -p /pipeline && echo 21 > /pipeline/n');
        const ts = await run(alice, 'typescript', 'import { readFileSync, writeFileSync } from "fs"; writeFileSync("/pipeline/n", String(Number(readFileSync("/pipeline/n", "utf8")) * 2))');
        expect(ts.exit_code).toBe(0);
        expect((await run(alice, 'python', 'print(open("/pipeline/n").read())')).stdout).toBe('42\n');
      }, 120_000);

      // A real process that exits 137 looks like one the kernel killed, so only the in-process sandbox tells them apart.
      it.skipIf(kind.name !== 'wasm')('an agent exiting 137 by itself keeps its changes and is not reported out of memory', async () => {
        const result = await run(alice, 'bash', 'echo mine > /exit137.txt; exit 137');
        expect(result.exit_code).toBe(137);
        expect(result.stderr).not.toMatch(/memory/);
        expect((await readFile(alice, '/exit137.txt')).status).toBe(200);
      });

      // Under bubblewrap /dev and /proc are the sandbox's own mounts (docs/compute.md lists it as a limit).
      it.skipIf(kind.name !== 'wasm')("a python run leaves the agent's files under /dev and /proc as they are", async () => {
        await world.raw('/v1/compute/fs', jsonInit('PUT', { path: '/dev/notes.txt', content: b64('mine') }, bearer(alice.api_key)));
        expect((await run(alice, 'python', 'print("hi")')).exit_code).toBe(0);
        expect((await readFile(alice, '/dev/notes.txt')).status).toBe(200);
      });

      it('a run that fails by itself keeps its changes; a run ended by its timeout keeps none', async () => {
        const failed = await run(alice, 'bash', 'echo kept > /kept.txt; exit 2');
        expect(failed.exit_code).toBe(2);
        expect((await readFile(alice, '/kept.txt')).status).toBe(200);
        const timedOut = await run(alice, 'typescript', 'import fs from "fs"; fs.writeFileSync("/lost.txt", "x"); while (true) {}', 1);
        expect(timedOut.exit_code).toBe(124);
        expect(timedOut.stderr).toMatch(/timed out after 1 s\n?$/);
        expect((await readFile(alice, '/lost.txt')).status).toBe(404);
      }, 120_000);

      it("never shows one agent another agent's files", async () => {
        await world.raw('/v1/compute/fs', jsonInit('PUT', { path: '/secret.txt', content: b64('alice only') }, bearer(alice.api_key)));
        const results = await Promise.all([run(bob, 'bash', 'cat /secret.txt; ls /'), run(bob, 'typescript', 'import fs from "fs"; console.log(fs.existsSync("/secret.txt"))')]);
        expect(results[0]!.stdout).not.toContain('alice only');
        expect(results[1]!.stdout).toBe('false\n');
        expect((await run(bob, 'python', 'import os\nprint(os.path.exists("/secret.txt"))')).stdout).toBe('False\n');
      }, 120_000);
    });

    describe('determinism and events', () => {
      it('appends compute.run.completed with runtime and exit_code and no duration', async () => {
        await run(alice, 'bash', 'exit 7');
        const events = (await (await world.raw('/_sim/events?after=0')).json()) as { events: Array<{ type: string; data: Record<string, unknown> }> };
        const last = events.events.filter((event) => event.type === 'compute.run.completed').at(-1);
        expect(last?.data).toEqual({ runtime: 'bash', exit_code: 7 });
      });

      it('the same seed and the same calls give the same output (time frozen at the clock, randomness seeded)', async () => {
        const codes: Array<[string, string]> = [
          ['typescript', 'const b = new Uint8Array(4); crypto.getRandomValues(b); console.log(Date.now(), new Date().toISOString(), Math.random(), b.join(","))'],
          ['bash', 'echo $RANDOM $RANDOM; date -u +%Y-%m-%dT%H:%M:%S'],
          ['python', 'import random, os, time, datetime\nprint(random.random(), os.urandom(4).hex(), time.time())'],
        ];
        const outputs = async () => {
          const other = await openRawWorld('fetch', { seed: 99, providers: { sandbox }, compute: { memoryLimitBytes: MEMORY_LIMIT } });
          try {
            const agent = await other.newAgent('det');
            const out: string[] = [];
            for (const [runtime, code] of codes) {
              const response = await other.raw('/v1/compute/run', jsonInit('POST', { runtime, code }, bearer(agent.api_key)));
              const body = (await response.json()) as Run;
              expect(body.stderr, runtime).toBe('');
              out.push(body.stdout);
            }
            return out;
          } finally {
            await other.close();
          }
        };
        const first = await outputs();
        expect(first[0]).toMatch(/^1767225600000 2026-01-01T00:00:00.000Z /);
        // Real processes read the real clock through date(1); every other source is pinned.
        if (kind.name === 'wasm') expect(first[1]).toMatch(/2026-01-01T00:00:00\n$/);
        else first[1] = first[1]!.split('\n')[0]!;
        expect(first[2]).toMatch(/ 1767225600(\.0)?\n$/);
        const second = await outputs();
        if (kind.name !== 'wasm') second[1] = second[1]!.split('\n')[0]!;
        expect(second).toEqual(first);
      }, 180_000);
    });

    describe('isolation: every known escape attempt fails', () => {
      it('typescript reaches no host object: constructor climbing, globalThis.process, require, dynamic import', async () => {
        const probes = [
          'console.log(typeof (function(){}).constructor.constructor("return process")().binding)',
          'console.log(typeof globalThis.process.binding, typeof globalThis.process.dlopen, typeof globalThis.require, typeof globalThis.fetch)',
          'console.log(Object.keys((function(){}).constructor.constructor("return this")()).includes("Buffer"))',
        ];
        if (kind.name === 'wasm') {
          // In-process: no host object may be reachable at all.
          for (const code of probes) {
            const result = await run(alice, 'typescript', code);
            expect(result.stdout, code).not.toMatch(/function|true/);
          }
        }
        // Whatever `process` the climb reaches belongs to the sandbox: never the server's.
        const climbed = await run(alice, 'typescript', 'const p = (function(){}).constructor.constructor("return globalThis.process")(); console.log(JSON.stringify(p && p.env))');
        expect(climbed.stdout).not.toContain(CANARY);
        const dynamic = await run(alice, 'typescript', 'const cp = await import("node:child_process"); console.log(typeof cp.execSync)');
        expect(dynamic.exit_code).toBe(1);
        expect(dynamic.stdout).toBe('');
      });

      it.each([
        [
          'typescript',
          'import fs from "fs"; for (const p of ["/etc/passwd", "/proc/self/environ", "../../../../etc/passwd"]) { try { console.log(fs.readFileSync(p, "utf8")) } catch (e) { console.log("refused", e.code) } } console.log(JSON.stringify(process.env))',
        ],
        ['bash', 'cat /etc/passwd; cat /proc/self/environ; cd ../../../..; cat etc/passwd; env; echo done'],
      ])("%s cannot read the host's files or the server's environment", async (runtime, code) => {
        const result = await run(alice, runtime, code);
        expect(result.stdout + result.stderr).not.toContain('root:');
        expect(result.stdout + result.stderr).not.toContain(CANARY);
      });

      it('bash cannot link outside the tree', async () => {
        const bash = await run(alice, 'bash', 'ln -s /etc/passwd /home/agent/link; cat /home/agent/link');
        expect(bash.stdout).not.toContain('root:');
      });

      it.each([
        [
          'typescript',
          'const f = (globalThis as any).fetch; if (typeof f === "function") { try { await f("http://127.0.0.1:PORT/"); console.log("fetched") } catch { console.log("refused") } } else console.log("no fetch", typeof (globalThis as any).WebSocket)',
        ],
        ['bash', 'curl http://127.0.0.1:PORT/; wget http://127.0.0.1:PORT/; echo > /dev/tcp/127.0.0.1/PORT; echo done'],
      ])('%s reaches no network (a local server receives nothing)', async (runtime, code) => {
        const before = connections;
        const result = await run(alice, runtime, code.replaceAll('PORT', String(port)));
        expect(result.stdout).not.toMatch(/fetched|function/);
        expect(connections).toBe(before);
      });

      describe('python (one interpreter, one probe per escape; each section prints only when the escape works)', () => {
        let probe: Run;
        let before = 0;
        beforeAll(async () => {
          before = connections;
          probe = await run(alice, 'python', PYTHON_PROBES.replaceAll('PORT', String(port)));
        }, 120_000);
        const section = (name: string) => probe.stdout.split('\n').filter((line) => line.startsWith(`${name}:`));

        it('cannot read /etc/passwd, /proc/self/environ or climb with ..', () => {
          expect(section('file')).toEqual([]);
          expect(probe.stdout).not.toContain('root:');
        });
        it("cannot see the server's environment (os.environ)", () => {
          expect(section('env')).toEqual([]);
          expect(probe.stdout).not.toContain(CANARY);
        });
        it('cannot follow a symbolic link out of the tree', () => {
          expect(section('link')).toEqual([]);
        });
        it('has no bridge to JavaScript: js, pyodide_js, pyodide.ffi, _pyodide_core, or proxies found by the garbage collector', () => {
          expect(section('ffi')).toEqual([]);
        });
        it('reaches no network: sockets and urllib fail and a local server receives nothing', () => {
          expect(section('net')).toEqual([]);
          expect(connections).toBe(before);
        });
        it('ran to the end', () => {
          expect(probe.stdout.endsWith('end\n')).toBe(true);
        });
      });

      it("python cannot run JavaScript through ctypes and emscripten_run_script (the worker's eval evaluates nothing)", async () => {
        const result = await run(
          alice,
          'python',
          [
            'import ctypes',
            'run_script = ctypes.CDLL(None).emscripten_run_script_string',
            'run_script.restype = ctypes.c_char_p',
            `print("ran:", run_script(b"String(typeof require === 'function' ? require('fs').readFileSync('/proc/self/environ', 'utf8') : typeof process)"))`,
          ].join('\n'),
        );
        expect(result.stdout).not.toContain('ran:');
        expect(result.stdout + result.stderr).not.toContain(CANARY);
        expect(result.exit_code).not.toBe(0);
      });
    });

    describe('runaway code', () => {
      it.each([
        ['typescript', 'while (true) {}'],
        ['bash', 'while true; do :; done'],
        ['python', 'while True:\n    pass'],
      ])(
        '%s: an infinite loop is ended at its timeout with 124',
        async (runtime, code) => {
          const result = await run(alice, runtime, code, 1);
          // Bash's own loop limit may end it first: either way it ends, never with success.
          if (runtime === 'bash') expect(result.exit_code).not.toBe(0);
          else {
            expect(result.exit_code).toBe(124);
            expect(result.stderr).toMatch(/timed out after 1 s\n?$/);
          }
        },
        180_000,
      );

      it.each([
        ['typescript', 'const a = []; while (true) a.push(new Array(100000).fill(1.5));'],
        ['python', 'a = []\nwhile True:\n    a.append(bytearray(10_000_000))'],
      ])(
        '%s: a memory bomb is ended with 137',
        async (runtime, code) => {
          const result = await run(alice, runtime, code, 60);
          expect(result.exit_code).toBe(137);
        },
        180_000,
      );

      it('bash: a memory bomb ends without success and a fork bomb ends; the host still runs code', async () => {
        expect((await run(alice, 'bash', 'x=aaaaaaaa; while true; do x="$x$x"; done', 30)).exit_code).not.toBe(0);
        await run(alice, 'bash', ':(){ :|:& };:', 5);
        expect((await run(alice, 'bash', 'echo alive')).stdout).toBe('alive\n');
      }, 120_000);

      it.each([
        ['typescript', 'const f = (n: number): number => f(n + 1) + 1; f(0)'],
        ['python', 'def f(n):\n    return f(n + 1) + 1\nf(0)'],
        ['bash', 'f() { f; }; f'],
      ])(
        '%s: deep recursion fails the run, not the host',
        async (runtime, code) => {
          const result = await run(alice, runtime, code, 30);
          expect(result.exit_code).not.toBe(0);
          expect((await run(alice, 'bash', 'echo alive')).stdout).toBe('alive\n');
        },
        120_000,
      );

      it.each([
        ['typescript', 'const line = "x".repeat(1023); for (let i = 0; i < 2100; i++) console.log(line)'],
        ['python', 'line = "x" * 1023\nfor i in range(2100):\n    print(line)'],
        ['bash', 'for i in $(seq 2100); do printf "%01023d\\n" 0; done'],
      ])(
        '%s: output past 1 MiB is cut and stderr ends with [output truncated]',
        async (runtime, code) => {
          const result = await run(alice, runtime, code, 60);
          expect(Buffer.byteLength(result.stdout)).toBeLessThanOrEqual(1024 ** 2);
          expect(Buffer.byteLength(result.stdout)).toBeGreaterThan(1024 ** 2 - 2048);
          expect(result.stderr).toMatch(/\[output truncated\]\n$/);
        },
        120_000,
      );
    });
  });
}
