// The DevTools endpoint of the simulated browser: targets (a tab and a page per tab), client
// connections with flattened sessions, and the protocol subset puppeteer-core 24 and
// playwright-core use to connect, open pages, navigate, evaluate, click, type and screenshot.
import { dispatchKey, dispatchMouse, insertText } from './input.js';
import { ProtocolError, RemoteObjects, type CallArgument } from './remote-objects.js';
import { SimPage, type EventGate, type PageSink } from './sim-page.js';

type Params = Record<string, any>;

interface Session {
  id: string;
  connection: Connection;
  /** The page this session drives, or the tab (whose child is the page). */
  page: SimPage;
  kind: 'tab' | 'page';
  enabled: Set<string>;
  autoAttach: boolean;
}

interface Connection {
  id: number;
  send(message: string): void;
  discover: boolean;
  autoAttach: { filter: Array<{ type?: string; exclude?: boolean }> | undefined } | null;
  sessions: Map<string, Session>;
}

const VERSION = {
  protocolVersion: '1.3',
  product: 'Chrome/131.0.0.0',
  revision: '@agent-services-simulated',
  userAgent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36 agent-services-simulated',
  jsVersion: '13.1',
};
const CONTEXT = 'DEFAULTCONTEXT';
const BROWSER_TARGET = { targetId: 'BROWSER', type: 'browser', title: '', url: '', attached: true, canAccessOpener: false };

/** The simulated browser's DevTools server; pages come from `newPage`. */
export class CdpServer implements PageSink {
  readonly pages: SimPage[] = [];
  private readonly connections = new Map<number, Connection>();
  private readonly objects = new RemoteObjects();
  private nextTarget = 1;
  private nextSession = 1;

  constructor(
    private readonly openPage: () => any,
    private readonly viewport: { width: number; height: number },
    private readonly navigationTimeoutMs: number,
  ) {}

  /** Opens a page (and its tab), announcing it to connections that discover or auto-attach; `loaded` follows its first load. */
  createPage(url: string | null, loaded?: () => void): SimPage {
    const number = String(this.nextTarget++).padStart(4, '0');
    const page = new SimPage(this.openPage(), `PAGE${number}`, `TAB${number}`, CONTEXT, this, this.objects, { ...this.viewport }, this.navigationTimeoutMs);
    this.pages.push(page);
    for (const connection of this.connections.values()) {
      if (connection.discover) {
        this.send(connection, { method: 'Target.targetCreated', params: { targetInfo: this.info(page, 'tab') } });
        this.send(connection, { method: 'Target.targetCreated', params: { targetInfo: this.info(page, 'page') } });
      }
      this.autoAttachRoot(connection, page);
    }
    if (url) page.navigate(url, () => undefined, loaded);
    else loaded?.();
    return page;
  }

  /** A page of the current document for the service's screenshot: the most recently opened one. */
  currentPage(): SimPage | undefined {
    return this.pages[this.pages.length - 1];
  }

  /** A window belongs to which page (for the host's hooks). */
  pageOfWindow(window: any): SimPage | undefined {
    return this.pages.find((page) => page.page.mainFrame?.window === window || page.window === window);
  }

  open(id: number, send: (message: string) => void): void {
    this.connections.set(id, { id, send, discover: false, autoAttach: null, sessions: new Map() });
  }

  close(id: number): void {
    this.connections.delete(id);
  }

  async receive(connectionId: number, text: string): Promise<void> {
    const connection = this.connections.get(connectionId);
    if (!connection) return;
    let message: { id: number; method: string; params?: Params; sessionId?: string };
    try {
      message = JSON.parse(text) as typeof message;
    } catch {
      return;
    }
    const reply = (body: Record<string, unknown>) => this.send(connection, { id: message.id, ...body, ...(message.sessionId ? { sessionId: message.sessionId } : {}) });
    try {
      const session = message.sessionId === undefined ? undefined : connection.sessions.get(message.sessionId);
      if (message.sessionId !== undefined && !session) throw new ProtocolError(`Session with given id not found.`);
      if (message.method === 'Page.navigate') {
        const page = this.pageOf(session);
        const url = String(message.params?.url ?? '');
        page.navigate(url, (loaderId, errorText) => reply({ result: { frameId: page.targetId, loaderId, ...(errorText ? { errorText } : {}) } }));
        return;
      }
      const result = await this.handle(connection, session, message.method, message.params ?? {});
      reply({ result: result ?? {} });
    } catch (error) {
      reply({ error: { code: error instanceof ProtocolError ? error.code : -32000, message: error instanceof Error ? error.message : String(error) } });
    }
  }

  emit(page: SimPage, gate: EventGate, method: string, params: Record<string, unknown>): void {
    for (const connection of this.connections.values()) {
      for (const session of connection.sessions.values()) {
        if (session.page !== page || session.kind !== 'page') continue;
        if (gate !== 'always' && !session.enabled.has(gate)) continue;
        this.send(connection, { method, params, sessionId: session.id });
      }
    }
  }

  private send(connection: Connection, message: Record<string, unknown>): void {
    connection.send(JSON.stringify(message));
  }

  private pageOf(session: Session | undefined): SimPage {
    if (!session) throw new ProtocolError("'Page' wasn't found");
    return session.page;
  }

  private info(page: SimPage, type: 'tab' | 'page', attached = true): Record<string, unknown> {
    return { targetId: type === 'tab' ? page.tabId : page.targetId, type, title: page.title || page.url, url: page.url, attached, canAccessOpener: false, browserContextId: page.browserContextId };
  }

  private matches(filter: Array<{ type?: string; exclude?: boolean }> | undefined, type: string): boolean {
    const entries = filter ?? [{ type: 'browser', exclude: true }, { type: 'tab', exclude: true }, {}];
    const entry = entries.find((candidate) => candidate.type === undefined || candidate.type === type);
    return entry !== undefined && !entry.exclude;
  }

  private attach(connection: Connection, page: SimPage, kind: 'tab' | 'page', parent: Session | undefined): Session {
    const session: Session = { id: `SESSION${String(this.nextSession++).padStart(6, '0')}`, connection, page, kind, enabled: new Set(), autoAttach: false };
    connection.sessions.set(session.id, session);
    this.send(connection, { method: 'Target.attachedToTarget', params: { sessionId: session.id, targetInfo: this.info(page, kind), waitingForDebugger: false }, ...(parent ? { sessionId: parent.id } : {}) });
    return session;
  }

  private autoAttachRoot(connection: Connection, page: SimPage): void {
    if (!connection.autoAttach) return;
    if (this.matches(connection.autoAttach.filter, 'tab')) this.attach(connection, page, 'tab', undefined);
    else if (this.matches(connection.autoAttach.filter, 'page')) this.attach(connection, page, 'page', undefined);
  }

  private detach(connection: Connection, sessionId: string): void {
    const session = connection.sessions.get(sessionId);
    if (!session) throw new ProtocolError('No session with given id');
    connection.sessions.delete(sessionId);
    this.send(connection, { method: 'Target.detachedFromTarget', params: { sessionId, targetId: session.kind === 'tab' ? session.page.tabId : session.page.targetId } });
  }

  private closePage(page: SimPage): void {
    const index = this.pages.indexOf(page);
    if (index < 0) return;
    this.pages.splice(index, 1);
    for (const connection of this.connections.values()) {
      for (const session of [...connection.sessions.values()]) if (session.page === page) this.detach(connection, session.id);
      if (connection.discover) {
        this.send(connection, { method: 'Target.targetDestroyed', params: { targetId: page.targetId } });
        this.send(connection, { method: 'Target.targetDestroyed', params: { targetId: page.tabId } });
      }
    }
    page.close();
  }

  private target(targetId: unknown): SimPage {
    const page = this.pages.find((candidate) => candidate.targetId === targetId || candidate.tabId === targetId);
    if (!page) throw new ProtocolError('No target with given id found');
    return page;
  }

  private node(session: Session | undefined, params: Params): any {
    const page = this.pageOf(session);
    if (params.objectId !== undefined) return this.objects.get(String(params.objectId)).value;
    if (params.backendNodeId !== undefined) return page.node(Number(params.backendNodeId));
    throw new ProtocolError('Either nodeId, backendNodeId or objectId must be specified');
  }

  private describe(page: SimPage, node: any, depth = 0): Record<string, unknown> {
    const attributes: string[] = [];
    for (const attribute of node.attributes ?? []) attributes.push(attribute.name, attribute.value);
    return {
      nodeId: 0,
      backendNodeId: page.backendId(node),
      nodeType: node.nodeType,
      nodeName: node.nodeName,
      localName: node.localName ?? '',
      nodeValue: node.nodeValue ?? '',
      childNodeCount: node.childNodes?.length ?? 0,
      ...(node.nodeType === 1 ? { attributes } : {}),
      ...(node.nodeType === 9 ? { documentURL: page.url, baseURL: page.url, frameId: page.targetId } : {}),
      ...(depth > 0 ? { children: [...(node.childNodes ?? [])].map((child: any) => this.describe(page, child, depth - 1)) } : {}),
    };
  }

  private quad(page: SimPage, node: any): number[] | undefined {
    const element = node.nodeType === 1 ? node : node.parentElement;
    const rect = page.layout().boxes.get(element);
    if (!rect || rect.width === 0 || rect.height === 0) return undefined;
    return [rect.x, rect.y, rect.x + rect.width, rect.y, rect.x + rect.width, rect.y + rect.height, rect.x, rect.y + rect.height];
  }

  private async handle(connection: Connection, session: Session | undefined, method: string, params: Params): Promise<Record<string, unknown> | undefined> {
    switch (method) {
      case 'Browser.getVersion':
        return VERSION;
      case 'Target.getBrowserContexts':
        return { browserContextIds: [], defaultBrowserContextId: CONTEXT };
      case 'Target.setDiscoverTargets':
        connection.discover = Boolean(params.discover);
        if (connection.discover) {
          for (const page of this.pages) {
            this.send(connection, { method: 'Target.targetCreated', params: { targetInfo: this.info(page, 'tab') } });
            this.send(connection, { method: 'Target.targetCreated', params: { targetInfo: this.info(page, 'page') } });
          }
          this.send(connection, { method: 'Target.targetCreated', params: { targetInfo: BROWSER_TARGET } });
        }
        return {};
      case 'Target.setAutoAttach':
        if (!session) {
          const first = connection.autoAttach === null;
          connection.autoAttach = params.autoAttach ? { filter: params.filter } : null;
          if (first && connection.autoAttach) for (const page of this.pages) this.autoAttachRoot(connection, page);
        } else if (session.kind === 'tab' && params.autoAttach && !session.autoAttach) {
          session.autoAttach = true;
          this.attach(connection, session.page, 'page', session);
        }
        return {};
      case 'Target.getTargets':
        return { targetInfos: this.pages.flatMap((page) => [this.info(page, 'tab'), this.info(page, 'page')]) };
      case 'Target.getTargetInfo':
        return { targetInfo: params.targetId === undefined ? (session ? this.info(session.page, session.kind) : BROWSER_TARGET) : this.info(this.target(params.targetId), 'page') };
      case 'Target.createTarget': {
        const page = this.createPage(params.url && params.url !== 'about:blank' ? String(params.url) : null);
        return { targetId: page.targetId };
      }
      case 'Target.attachToTarget': {
        const page = this.target(params.targetId);
        return { sessionId: this.attach(connection, page, params.targetId === page.tabId ? 'tab' : 'page', undefined).id };
      }
      case 'Target.detachFromTarget':
        this.detach(connection, String(params.sessionId));
        return {};
      case 'Target.closeTarget':
        this.closePage(this.target(params.targetId));
        return { success: true };
      case 'Page.close':
        this.closePage(this.pageOf(session));
        return {};
      case 'Target.createBrowserContext':
        throw new ProtocolError('the simulated browser has one browser context; use the default context');
      case 'Page.enable':
      case 'Runtime.enable':
        return this.enable(session, method.split('.')[0]!);
      case 'Page.setLifecycleEventsEnabled': {
        const page = this.pageOf(session);
        if (params.enabled) {
          session!.enabled.add('lifecycle');
          for (const name of page.firedLifecycle()) this.send(connection, { method: 'Page.lifecycleEvent', params: { frameId: page.targetId, loaderId: page.loaderId, name, timestamp: 0 }, sessionId: session!.id });
        } else session!.enabled.delete('lifecycle');
        return {};
      }
      case 'Page.getFrameTree':
        return { frameTree: { frame: this.pageOf(session).frameInfo(), childFrames: [] } };
      case 'Page.addScriptToEvaluateOnNewDocument': {
        const page = this.pageOf(session);
        const identifier = String(page.scripts.size + 1);
        if (params.worldName) page.worlds.add(String(params.worldName));
        if (params.source) page.scripts.set(identifier, String(params.source));
        return { identifier };
      }
      case 'Page.removeScriptToEvaluateOnNewDocument':
        this.pageOf(session).scripts.delete(String(params.identifier));
        return {};
      case 'Page.createIsolatedWorld':
        return { executionContextId: this.pageOf(session).createWorld(String(params.worldName ?? '')).id };
      case 'Page.reload': {
        const page = this.pageOf(session);
        page.navigate(page.url, () => undefined);
        return {};
      }
      case 'Page.getNavigationHistory': {
        const page = this.pageOf(session);
        return { currentIndex: 0, entries: [{ id: 0, url: page.url, userTypedURL: page.url, title: page.title, transitionType: 'typed' }] };
      }
      case 'Page.getLayoutMetrics': {
        const page = this.pageOf(session);
        const { width, height } = page.viewport;
        const contentHeight = Math.max(height, Math.ceil(page.layout().height));
        const viewport = { pageX: 0, pageY: 0, clientWidth: width, clientHeight: height };
        const visual = { offsetX: 0, offsetY: 0, pageX: 0, pageY: 0, clientWidth: width, clientHeight: height, scale: 1, zoom: 1 };
        const content = { x: 0, y: 0, width, height: contentHeight };
        return { layoutViewport: viewport, visualViewport: visual, contentSize: content, cssLayoutViewport: viewport, cssVisualViewport: visual, cssContentSize: content };
      }
      case 'Page.captureScreenshot': {
        const shot = this.pageOf(session).screenshot();
        return { data: shot.png.toString('base64') };
      }
      case 'Emulation.setDeviceMetricsOverride': {
        const page = this.pageOf(session);
        if (params.width > 0 && params.height > 0) page.resize(Number(params.width), Number(params.height));
        return {};
      }
      case 'Emulation.clearDeviceMetricsOverride':
        return {};
      case 'Runtime.evaluate': {
        const page = this.pageOf(session);
        const context = page.context(params.contextId);
        return this.objects.evaluate(context.window, context.id, String(params.expression), { byValue: Boolean(params.returnByValue), awaitPromise: Boolean(params.awaitPromise) });
      }
      case 'Runtime.callFunctionOn': {
        const page = this.pageOf(session);
        const self = params.objectId === undefined ? undefined : this.objects.get(String(params.objectId));
        const context = page.context(params.executionContextId ?? self?.contextId);
        const args = ((params.arguments ?? []) as CallArgument[]).map((argument) => this.objects.argument(argument));
        return this.objects.call(context.window, context.id, String(params.functionDeclaration), self?.value, args, { byValue: Boolean(params.returnByValue), awaitPromise: Boolean(params.awaitPromise) });
      }
      case 'Runtime.getProperties': {
        const { value, contextId } = this.objects.get(String(params.objectId));
        const page = this.pageOf(session);
        const result = Object.keys(value as object).map((name) => ({
          name,
          enumerable: true,
          configurable: true,
          writable: true,
          isOwn: true,
          value: this.objects.wrap((value as Record<string, unknown>)[name], contextId, false, page.window),
        }));
        return { result };
      }
      case 'Runtime.releaseObject':
        this.objects.release(String(params.objectId));
        return {};
      case 'Runtime.addBinding':
        if (session) this.pageOf(session).installBinding(String(params.name));
        else for (const page of this.pages) page.installBinding(String(params.name));
        return {};
      case 'DOM.describeNode': {
        const page = this.pageOf(session);
        return { node: this.describe(page, this.node(session, params), Number(params.depth ?? 0)) };
      }
      case 'DOM.getDocument': {
        const page = this.pageOf(session);
        return { root: this.describe(page, page.window.document, Number(params.depth ?? 1)) };
      }
      case 'DOM.resolveNode': {
        const page = this.pageOf(session);
        const node = this.node(session, params);
        const context = page.context(params.executionContextId);
        return { object: this.objects.wrap(node, context.id, false, page.window) };
      }
      case 'DOM.getContentQuads': {
        const quad = this.quad(this.pageOf(session), this.node(session, params));
        if (!quad) throw new ProtocolError('Could not compute content quads.');
        return { quads: [quad] };
      }
      case 'DOM.getBoxModel': {
        const page = this.pageOf(session);
        const quad = this.quad(page, this.node(session, params));
        if (!quad) throw new ProtocolError('Could not compute box model.');
        return { model: { content: quad, padding: quad, border: quad, margin: quad, width: quad[2]! - quad[0]!, height: quad[5]! - quad[1]! } };
      }
      case 'DOM.scrollIntoViewIfNeeded':
        this.node(session, params);
        return {};
      case 'DOM.getFrameOwner':
        throw new ProtocolError('Frame has no owner');
      case 'Input.dispatchMouseEvent':
        dispatchMouse(this.pageOf(session), params as never);
        return {};
      case 'Input.dispatchKeyEvent':
        dispatchKey(this.pageOf(session), params as never);
        return {};
      case 'Input.insertText':
        insertText(this.pageOf(session), String(params.text ?? ''));
        return {};
      default:
        // Everything else (Network, Log, Audits, Performance, Emulation, Inspector, Fetch, ...)
        // is accepted and changes nothing: the simulated browser has no such machinery.
        return {};
    }
  }

  private enable(session: Session | undefined, domain: string): Record<string, unknown> {
    const page = this.pageOf(session);
    if (session!.enabled.has(domain)) return {};
    session!.enabled.add(domain);
    if (domain === 'Runtime') {
      for (const context of page.contexts) this.send(session!.connection, { method: 'Runtime.executionContextCreated', params: { context: page.contextInfo(context) }, sessionId: session!.id });
    }
    return {};
  }
}
