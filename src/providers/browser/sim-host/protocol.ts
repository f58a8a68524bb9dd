/** Messages from the service to a simulated-browser host process. */
export type ToHost =
  | { t: 'start'; init: SessionInit }
  | { t: 'open'; c: number }
  | { t: 'in'; c: number; m: string }
  | { t: 'close'; c: number }
  | { t: 'shot'; id: number }
  | { t: 'loaded'; id: number; ok: true; status: number; headers: Record<string, string>; body: string; url: string }
  | { t: 'loaded'; id: number; ok: false; error: string };

/** Messages from a host process to the service. */
export type FromHost =
  | { t: 'ready' }
  | { t: 'started' }
  | { t: 'out'; c: number; m: string }
  | { t: 'shut'; c: number }
  | { t: 'shot'; id: number; png: string; width: number; height: number }
  | { t: 'load'; id: number; method: string; url: string; headers: Record<string, string>; body: string | null };

/** What a host process starts with (JSON in its `SIM_BROWSER_INIT` environment variable). */
export interface HostInit {
  /** file: URL of happy-dom's entry module. */
  happyDom: string;
}

/** The session a started host serves (hosts start before they are needed, then get this). */
export interface SessionInit {
  viewport: { width: number; height: number };
  url: string | null;
  navigationTimeoutMs: number;
}
