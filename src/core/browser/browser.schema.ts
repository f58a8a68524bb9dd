import { z } from 'zod';
import { httpUrl, intParam, timestamp } from '../shared/schemas.js';

/** Smallest and largest viewport sides accepted, in CSS pixels. */
export const VIEWPORT_LIMITS = { width: { min: 320, max: 3840 }, height: { min: 200, max: 2160 } } as const;

/** A viewport: width 320..3840, height 200..2160 (integers). */
export const BrowserViewport = z.strictObject({
  width: z.number().int().min(VIEWPORT_LIMITS.width.min).max(VIEWPORT_LIMITS.width.max),
  height: z.number().int().min(VIEWPORT_LIMITS.height.min).max(VIEWPORT_LIMITS.height.max),
});
export type BrowserViewport = z.infer<typeof BrowserViewport>;

/** Body of `POST /v1/compute/browser/sessions`. */
export const CreateBrowserSessionBody = z.strictObject({
  url: httpUrl.optional().describe('the first page; a blank tab when omitted'),
  viewport: BrowserViewport.optional().describe('default 1280 x 720'),
});
export type CreateBrowserSessionBody = z.infer<typeof CreateBrowserSessionBody>;

/** Session status (SPEC.md part 3). */
export const BrowserSessionStatus = z.enum(['open', 'terminated']);
export type BrowserSessionStatus = z.infer<typeof BrowserSessionStatus>;

/**
 * Why a session ended: deleted, idle for 60 minutes, the browser died, the service restarted, or
 * (a world several processes serve) the process running its browser went away.
 */
export const TerminatedReason = z.enum(['closed', 'idle', 'crashed', 'restart', 'lost']);
export type TerminatedReason = z.infer<typeof TerminatedReason>;

/** A browser session as the API shows it. */
export const BrowserSession = z.object({
  session_id: z.string(),
  ws_endpoint: z.string().describe('ws:// (or wss://) DevTools endpoint carrying the session secret'),
  status: BrowserSessionStatus,
  created_at: timestamp,
  expires_at: timestamp.describe('last activity plus 60 minutes of service time'),
  last_activity_at: timestamp,
  url: z.string().nullable(),
  viewport: z.object({ width: z.number().int(), height: z.number().int() }),
  terminated_at: timestamp.nullable(),
  terminated_reason: TerminatedReason.nullable(),
});
export type BrowserSession = z.infer<typeof BrowserSession>;

/** Query of `GET /v1/compute/browser/sessions`. */
export const BrowserSessionsQuery = z.strictObject({ limit: intParam(1, 100).default(20), cursor: z.string().min(1).optional() });
export type BrowserSessionsQuery = z.infer<typeof BrowserSessionsQuery>;

/** Answer of `GET /v1/compute/browser/sessions`, newest first. */
export const BrowserSessionList = z.object({ sessions: z.array(BrowserSession), next_cursor: z.string().nullable() });
export type BrowserSessionList = z.infer<typeof BrowserSessionList>;

/** Path of the routes on one session. */
export const BrowserSessionParams = z.strictObject({ session_id: z.string().min(1).max(64) });
export type BrowserSessionParams = z.infer<typeof BrowserSessionParams>;

/** Answer of `GET /v1/compute/browser/sessions/{id}/screenshot`. */
export const BrowserScreenshot = z.object({
  data: z.string().describe('Base64 PNG of the current viewport'),
  width: z.number().int(),
  height: z.number().int(),
});
export type BrowserScreenshot = z.infer<typeof BrowserScreenshot>;
