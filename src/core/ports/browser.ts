import type { ServiceIdentifier } from '../shared/di.js';

/** A viewport in CSS pixels. */
export interface Viewport {
  width: number;
  height: number;
}

/** What a browser session starts with. */
export interface BrowserLaunchRequest {
  /** The session's id (`bs_...`), for logs and temporary directories. */
  sessionId: string;
  viewport: Viewport;
  /** The first page's URL; null opens a blank tab. */
  url: string | null;
  /** How long one navigation may take, in milliseconds of real time. */
  navigationTimeoutMs: number;
}

/**
 * One DevTools client connection as the provider sees it: text messages of the Chrome DevTools
 * Protocol both ways. The service's WebSocket edge makes one per accepted upgrade.
 */
export interface CdpChannel {
  /** Sends one protocol message (a JSON text) to the client. */
  send(message: string): void;
  /** Ends the connection. */
  close(): void;
  /** Registers the receiver of the client's messages (once). */
  onMessage(listener: (message: string) => void): void;
  /** Registers what to do when the client goes away (once). */
  onClose(listener: () => void): void;
}

/** A PNG image and its size in pixels. */
export interface Screenshot {
  png: Uint8Array;
  width: number;
  height: number;
}

/** One live browser behind a session. */
export interface BrowserInstance {
  /** Pipes a client connection to the browser until either side closes. */
  attach(client: CdpChannel): void;
  /** A PNG of the current viewport of the session's most recently opened page that is still open. */
  screenshot(): Promise<Screenshot>;
  /** Ends the browser and every connection to it; resolves once its process is gone. */
  close(): Promise<void>;
  /** Registers what to do when the browser ends without being asked (a crash). */
  onExit(listener: () => void): void;
}

/**
 * Starts browsers for sessions: Chromium processes behind the service's DevTools proxy, or the
 * simulated browser (happy-dom pages behind a DevTools endpoint of its own).
 */
export interface Browser {
  /** `chromium` or `simulated`, as the docs and `serve --browser` name them. */
  readonly kind: 'chromium' | 'simulated';
  /** Starts one browser. @throws Error when it cannot be started */
  launch(request: BrowserLaunchRequest): Promise<BrowserInstance>;
  /** Ends whatever the provider keeps besides sessions (a warm spare browser); called when the runtime stops. */
  shutdown?(): Promise<void>;
}

/** Injection token of {@link Browser}. */
export const Browser = Symbol.for('agent-services/Browser') as ServiceIdentifier<Browser>;

/** Thrown by `BrowserInstance.screenshot` when a client closed every page of the session. */
export class NoOpenPageError extends Error {
  constructor() {
    super('the browser has no open page');
  }
}
