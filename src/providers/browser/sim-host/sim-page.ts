// One page (tab) of the simulated browser: a happy-dom page, its documents' lifecycle as DevTools
// events, its execution contexts and nodes, and input.
import vm from 'node:vm';
import type { Layout } from './layout.js';
import { installGeometry, layoutOf } from './page-patches.js';
import { ProtocolError, type RemoteObjects } from './remote-objects.js';
import { renderPng } from './raster.js';

/** Which enablement an event needs on a session to be sent. */
export type EventGate = 'Page' | 'Runtime' | 'lifecycle' | 'always';

/** Where a page's events go. */
export interface PageSink {
  emit(page: SimPage, gate: EventGate, method: string, params: Record<string, unknown>): void;
}

/** An execution context of the current document. */
export interface ExecutionContext {
  id: number;
  name: string;
  isDefault: boolean;
  uniqueId: string;
  window: any;
}

let nextContextId = 1;
let nextLoader = 1;
const newLoaderId = () => `LOADER${String(nextLoader++).padStart(8, '0')}`;

/** A page of the simulated browser. */
export class SimPage {
  window: any;
  loaderId = '';
  contexts: ExecutionContext[] = [];
  /** World names that get a context in every new document. */
  readonly worlds = new Set<string>();
  /** Scripts to run in every new document, before its own scripts. */
  readonly scripts = new Map<string, string>();
  readonly bindings = new Set<string>();
  viewport: { width: number; height: number };
  private readonly fired = new Set<string>();
  private readonly started = new WeakMap<object, string>();
  private pendingLoader: string | undefined;
  private onNavigationResponse: ((loaderId: string, errorText?: string) => void) | undefined;
  private nodes = new Map<number, any>();
  private nodeIds = new WeakMap<object, number>();
  private nextNode = 1;

  constructor(
    readonly page: any,
    readonly targetId: string,
    readonly tabId: string,
    readonly browserContextId: string,
    private readonly sink: PageSink,
    private readonly objects: RemoteObjects,
    viewport: { width: number; height: number },
    private readonly navigationTimeoutMs: number,
  ) {
    this.viewport = viewport;
    page.setViewport({ width: viewport.width, height: viewport.height });
    this.commit(page.mainFrame.window);
    this.loaded('DOMContentLoaded');
    this.loaded('load');
  }

  get url(): string {
    return String(this.window?.location?.href ?? 'about:blank');
  }

  get title(): string {
    return String(this.window?.document?.title ?? '');
  }

  /** The frame as `Page.getFrameTree` and `Page.frameNavigated` show it. */
  frameInfo(): Record<string, unknown> {
    const url = new URL(this.url);
    const origin = url.protocol === 'about:' ? '://' : url.origin;
    return {
      id: this.targetId,
      loaderId: this.loaderId,
      url: this.url.split('#')[0],
      ...(url.hash ? { urlFragment: url.hash } : {}),
      domainAndRegistry: '',
      securityOrigin: origin,
      mimeType: 'text/html',
      adFrameStatus: { adFrameType: 'none' },
      secureContextType: url.protocol === 'https:' ? 'Secure' : 'InsecureScheme',
      crossOriginIsolatedContextType: 'NotIsolated',
      gatedAPIFeatures: [],
    };
  }

  /** The execution context with this id in the current document. @throws ProtocolError */
  context(id: number | undefined): ExecutionContext {
    const found = id === undefined ? this.contexts.find((context) => context.isDefault) : this.contexts.find((context) => context.id === id);
    if (!found) throw new ProtocolError('Cannot find context with specified id');
    return found;
  }

  /** Creates an isolated world in the current document (and in every later one). */
  createWorld(name: string): ExecutionContext {
    this.worlds.add(name);
    return this.addContext(name, false);
  }

  /** Called by the host for each request a document makes; notes the start of a navigation. */
  requestStarted(window: any, url: string): void {
    if (window === this.window || this.started.has(window)) return;
    const loaderId = this.pendingLoader ?? newLoaderId();
    this.pendingLoader = undefined;
    this.started.set(window, loaderId);
    this.sink.emit(this, 'Page', 'Page.frameStartedNavigating', { frameId: this.targetId, url, loaderId, navigationType: 'differentDocument' });
    this.sink.emit(this, 'Page', 'Page.frameStartedLoading', { frameId: this.targetId });
  }

  /** Called when a navigation's response arrived (or failed), before its document is committed. */
  responded(window: any, errorText?: string): void {
    const answer = this.onNavigationResponse;
    if (!answer || window === this.window) return;
    this.onNavigationResponse = undefined;
    answer(this.started.get(window) ?? this.loaderId, errorText);
  }

  /** Makes a window the page's current document: clears contexts, emits the commit, runs scripts. */
  commit(window: any): void {
    if (window === this.window) return;
    this.requestStarted(window, String(window.location?.href ?? 'about:blank'));
    this.responded(window);
    this.window = window;
    this.loaderId = this.started.get(window)!;
    this.fired.clear();
    this.contexts = [];
    this.nodes = new Map();
    this.nodeIds = new WeakMap();
    this.objects.dropContexts((id) => this.contexts.some((context) => context.id === id));
    this.sink.emit(this, 'Runtime', 'Runtime.executionContextsCleared', {});
    this.lifecycle('init');
    this.sink.emit(this, 'Page', 'Page.frameNavigated', { frame: this.frameInfo(), type: 'Navigation' });
    installGeometry(window, { layout: () => this.layout(), viewport: () => this.viewport });
    for (const name of this.bindings) this.installBinding(name);
    for (const source of this.scripts.values()) {
      try {
        new vm.Script(source, { filename: 'addScriptToEvaluateOnNewDocument' }).runInContext(window);
      } catch {
        // A failing injected script does not stop the document, as in Chromium.
      }
    }
    this.addContext('', true);
    for (const name of this.worlds) this.addContext(name, false);
    this.lifecycle('commit');
    window.document.addEventListener('DOMContentLoaded', () => this.loaded('DOMContentLoaded'));
    window.addEventListener('load', () => this.loaded('load'));
  }

  /** Emits the lifecycle events of a document that finished loading (once per document and kind). */
  loaded(kind: 'DOMContentLoaded' | 'load'): void {
    if (this.fired.has(kind)) return;
    if (kind === 'load' && !this.fired.has('DOMContentLoaded')) this.loaded('DOMContentLoaded');
    this.fired.add(kind);
    const timestamp = this.fired.size;
    if (kind === 'DOMContentLoaded') {
      this.sink.emit(this, 'Page', 'Page.domContentEventFired', { timestamp });
      this.lifecycle('DOMContentLoaded');
      return;
    }
    this.sink.emit(this, 'Page', 'Page.loadEventFired', { timestamp });
    this.lifecycle('load');
    this.lifecycle('networkAlmostIdle');
    this.lifecycle('networkIdle');
    this.sink.emit(this, 'Page', 'Page.frameStoppedLoading', { frameId: this.targetId });
  }

  /** Lifecycle events already fired for the current document, for a session that enables them late. */
  firedLifecycle(): string[] {
    return ['init', 'commit', ...this.fired, ...(this.fired.has('load') ? ['networkAlmostIdle', 'networkIdle'] : [])];
  }

  /**
   * Navigates; `respond` is called once the response arrived (before the new document commits),
   * `finished` once the document loaded (or the load failed).
   */
  navigate(url: string, respond: (loaderId: string, errorText?: string) => void, finished?: () => void): void {
    const loaderId = newLoaderId();
    this.pendingLoader = loaderId;
    this.onNavigationResponse = respond;
    const done = (): void => {
      const window = this.page.mainFrame.window;
      if (window !== this.window) this.commit(window);
      this.loaded('load');
      finished?.();
    };
    this.page.goto(url, { timeout: this.navigationTimeoutMs }).then(done, (error: unknown) => {
      this.responded(this.page.mainFrame.window, /timed out|timeout/i.test(String(error)) ? 'net::ERR_TIMED_OUT' : 'net::ERR_CONNECTION_REFUSED');
      done();
    });
    if (/^about:/i.test(url)) queueMicrotask(() => this.responded(this.page.mainFrame.window));
  }

  /** Installs a `Runtime.addBinding` function in the current document. */
  installBinding(name: string): void {
    this.bindings.add(name);
    const window = this.window;
    window[name] = (payload: unknown) => {
      const context = this.contexts.find((entry) => entry.isDefault);
      this.sink.emit(this, 'Runtime', 'Runtime.bindingCalled', { name, payload: String(payload), executionContextId: context?.id ?? 0 });
    };
  }

  /** The node of a backendNodeId. @throws ProtocolError */
  node(backendNodeId: number): any {
    const node = this.nodes.get(backendNodeId);
    if (!node) throw new ProtocolError('No node with given id found');
    return node;
  }

  /** The backendNodeId of a node (assigned on first use). */
  backendId(node: object): number {
    let id = this.nodeIds.get(node);
    if (id === undefined) {
      id = this.nextNode++;
      this.nodeIds.set(node, id);
      this.nodes.set(id, node);
    }
    return id;
  }

  /** The current layout. */
  layout(): Layout {
    // happy-dom has no cheap change counter; layouts are small, so recompute each time.
    return layoutOf(this.window, this.viewport.width);
  }

  /** A PNG of the viewport. */
  screenshot(): { png: Buffer; width: number; height: number } {
    const { width, height } = this.viewport;
    return { png: renderPng(this.layout(), width, height), width, height };
  }

  /** Changes the viewport (Emulation.setDeviceMetricsOverride). */
  resize(width: number, height: number): void {
    this.viewport = { width, height };
    this.page.setViewport({ width, height });
    this.sink.emit(this, 'Page', 'Page.frameResized', {});
  }

  close(): void {
    void this.page.close();
  }

  private addContext(name: string, isDefault: boolean): ExecutionContext {
    const context: ExecutionContext = { id: nextContextId++, name, isDefault, uniqueId: `ctx-${nextContextId}`, window: this.window };
    this.contexts.push(context);
    this.sink.emit(this, 'Runtime', 'Runtime.executionContextCreated', { context: this.contextInfo(context) });
    return context;
  }

  /** A context as `Runtime.executionContextCreated` shows it. */
  contextInfo(context: ExecutionContext): Record<string, unknown> {
    const url = new URL(this.url);
    return {
      id: context.id,
      origin: url.protocol === 'about:' ? '://' : url.origin,
      name: context.name,
      uniqueId: context.uniqueId,
      auxData: { isDefault: context.isDefault, type: context.isDefault ? 'default' : 'isolated', frameId: this.targetId },
    };
  }

  private lifecycle(name: string): void {
    this.sink.emit(this, 'lifecycle', 'Page.lifecycleEvent', { frameId: this.targetId, loaderId: this.loaderId, name, timestamp: this.fired.size });
  }
}
