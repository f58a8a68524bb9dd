import { fork, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { NoOpenPageError, type Browser, type BrowserInstance, type BrowserLaunchRequest, type CdpChannel, type Screenshot } from '../../core/ports/browser.js';
import type { FromHost, HostInit, SessionInit, ToHost } from './sim-host/protocol.js';

/** One outbound page load of a simulated page. */
export interface PageRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: Uint8Array | null;
}

/** Its answer; `url` is the final URL after redirects. */
export interface PageResponse {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array;
  url: string;
}

/** Where simulated pages come from: the network (through the HttpClient port) or the runtime itself. */
export type PageLoader = (request: PageRequest) => Promise<PageResponse>;

const here = path.dirname(fileURLToPath(import.meta.url));

/** Node's permission-model flag: `--permission` from 22.13 and 23.5, `--experimental-permission` before. */
function permissionFlag(): string {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  return major > 23 || (major === 23 && minor >= 5) || (major === 22 && minor >= 13) ? '--permission' : '--experimental-permission';
}
let transpiled: string | undefined;

/**
 * The host program's entry: the compiled `sim-host/host-main.js` beside this file, or, when
 * running from TypeScript sources (tests, tsx), the sources transpiled once into a temporary
 * directory (the host runs under plain `node` with no loader hooks).
 */
function hostEntry(): string {
  const compiled = path.join(here, 'sim-host', 'host-main.js');
  if (existsSync(compiled)) return compiled;
  if (transpiled) return transpiled;
  const require = createRequire(import.meta.url);
  const { transform } = require('sucrase') as typeof import('sucrase');
  const out = mkdtempSync(path.join(tmpdir(), 'agent-services-sim-host-'));
  mkdirSync(out, { recursive: true });
  writeFileSync(path.join(out, 'package.json'), '{"type":"module"}');
  for (const file of readdirSync(path.join(here, 'sim-host')).filter((name) => name.endsWith('.ts'))) {
    const code = transform(readFileSync(path.join(here, 'sim-host', file), 'utf8'), { transforms: ['typescript'], disableESTransforms: true }).code;
    writeFileSync(path.join(out, file.replace(/\.ts$/, '.js')), code);
  }
  transpiled = path.join(out, 'host-main.js');
  return transpiled;
}

/**
 * The simulated browser: each session is a host process running happy-dom pages behind a
 * DevTools server of its own (sim-host/), isolated from the service's process; page loads come
 * back to the service through a {@link PageLoader}.
 */
export class SimulatedBrowser implements Browser {
  readonly kind = 'simulated' as const;

  constructor(private readonly loader: PageLoader) {}

  /** A started host waiting for its session: hosts take seconds to load happy-dom, so one is kept ready. */
  private spare: SimInstance | undefined;

  async launch(request: BrowserLaunchRequest): Promise<BrowserInstance> {
    const instance = this.spare ?? this.spawn();
    this.spare = undefined;
    await instance.start({ viewport: request.viewport, url: request.url, navigationTimeoutMs: request.navigationTimeoutMs });
    this.spare = this.spawn();
    this.spare.ready.catch(() => (this.spare = undefined));
    return instance;
  }

  /** Stops the spare host. */
  async shutdown(): Promise<void> {
    const spare = this.spare;
    this.spare = undefined;
    await spare?.close();
  }

  private spawn(): SimInstance {
    const entry = hostEntry();
    const happyDom = createRequire(import.meta.url).resolve('happy-dom');
    const modules = realpathSync(path.resolve(path.dirname(happyDom), '..', '..'));
    const init: HostInit = { happyDom: pathToFileURL(realpathSync(happyDom)).href };
    const child = fork(entry, [], {
      execArgv: [
        '--disallow-code-generation-from-strings',
        '--frozen-intrinsics',
        permissionFlag(),
        `--allow-fs-read=${modules}${path.sep}`,
        `--allow-fs-read=${path.dirname(entry)}${path.sep}`,
        '--no-warnings',
        '--max-old-space-size=256',
      ],
      env: { SIM_BROWSER_INIT: JSON.stringify(init) },
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
      serialization: 'json',
    });
    return new SimInstance(child, this.loader);
  }
}

/** Every host still running, killed if the service process exits without closing them. */
const hosts = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of hosts) child.kill('SIGKILL');
});

/** One session's host process. */
class SimInstance implements BrowserInstance {
  readonly ready: Promise<void>;
  private started: (() => void) | undefined;
  private readonly clients = new Map<number, CdpChannel>();
  private readonly shots = new Map<number, (shot: Screenshot) => void>();
  private readonly exitListeners: Array<() => void> = [];
  private readonly exited: Promise<void>;
  private nextClient = 1;
  private nextShot = 1;
  private closing = false;

  constructor(
    private readonly child: ChildProcess,
    private readonly loader: PageLoader,
  ) {
    hosts.add(child);
    // A host never keeps the service's process alive on its own; runtime.close() ends it.
    child.unref();
    (child.channel as { unref?: () => void } | undefined)?.unref?.();
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    void this.exited.then(() => hosts.delete(child));
    void this.exited.then(() => {
      for (const client of this.clients.values()) client.close();
      this.clients.clear();
      if (!this.closing) for (const listener of this.exitListeners) listener();
    });
    this.ready = new Promise((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (code) => reject(new Error(`the simulated browser exited with code ${code} while starting`)));
      child.on('message', (message: FromHost) => {
        if (message.t === 'ready') resolve();
        else if (message.t === 'started') this.started?.();
        else this.receive(message);
      });
    });
  }

  /** Gives the host its session and waits until its first page exists. */
  async start(init: SessionInit): Promise<void> {
    await this.ready;
    await new Promise<void>((resolve, reject) => {
      this.started = resolve;
      this.exited.then(() => reject(new Error('the simulated browser exited while starting')));
      this.post({ t: 'start', init });
    });
  }

  attach(client: CdpChannel): void {
    if (this.closing) return client.close();
    const id = this.nextClient++;
    this.clients.set(id, client);
    this.post({ t: 'open', c: id });
    client.onMessage((message) => this.post({ t: 'in', c: id, m: message }));
    client.onClose(() => {
      this.clients.delete(id);
      this.post({ t: 'close', c: id });
    });
  }

  screenshot(): Promise<Screenshot> {
    const id = this.nextShot++;
    return new Promise((resolve, reject) => {
      this.shots.set(id, (shot) => (shot.width > 0 ? resolve(shot) : reject(new NoOpenPageError())));
      this.post({ t: 'shot', id });
    });
  }

  onExit(listener: () => void): void {
    this.exitListeners.push(listener);
  }

  async close(): Promise<void> {
    this.closing = true;
    for (const client of this.clients.values()) client.close();
    this.clients.clear();
    // Held again until it is gone, so awaiting the close keeps the process alive meanwhile.
    this.child.ref();
    this.child.kill('SIGKILL');
    await this.exited;
  }

  private post(message: ToHost): void {
    if (this.child.connected) this.child.send(message);
  }

  private receive(message: FromHost): void {
    switch (message.t) {
      case 'out':
        this.clients.get(message.c)?.send(message.m);
        break;
      case 'shut':
        this.clients.get(message.c)?.close();
        break;
      case 'shot':
        this.shots.get(message.id)?.({ png: Buffer.from(message.png, 'base64'), width: message.width, height: message.height });
        this.shots.delete(message.id);
        break;
      case 'load':
        void this.loader({ method: message.method, url: message.url, headers: message.headers, body: message.body === null ? null : Buffer.from(message.body, 'base64') }).then(
          (response) => this.post({ t: 'loaded', id: message.id, ok: true, status: response.status, headers: response.headers, body: Buffer.from(response.body).toString('base64'), url: response.url }),
          (error: unknown) => this.post({ t: 'loaded', id: message.id, ok: false, error: error instanceof Error ? error.message : String(error) }),
        );
        break;
    }
  }
}
