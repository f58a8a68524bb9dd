import { defineRoute } from '../api/route.js';
import { BrowserScreenshot, BrowserSession, BrowserSessionList, BrowserSessionParams, BrowserSessionsQuery, CreateBrowserSessionBody } from './browser.schema.js';

/** The browser-session endpoints of SPEC.md part 4 and DECISIONS.md (Compute: Browser sessions). */
export const browserRoutes = {
  /** Starts a headless browser; ws_endpoint speaks the Chrome DevTools Protocol (puppeteer connect, playwright connectOverCDP). `POST /v1/compute/browser/sessions` */
  createSession: defineRoute({
    id: 'browser.createSession',
    method: 'POST',
    path: '/v1/compute/browser/sessions',
    auth: 'agent',
    tag: 'compute',
    status: 201,
    summary: 'Starts a headless browser; ws_endpoint speaks the Chrome DevTools Protocol (puppeteer connect, playwright connectOverCDP).',
    body: CreateBrowserSessionBody,
    response: BrowserSession,
  }),
  /** The calling agent's browser sessions, newest first; keyset cursors. `GET /v1/compute/browser/sessions` */
  listSessions: defineRoute({
    id: 'browser.listSessions',
    method: 'GET',
    path: '/v1/compute/browser/sessions',
    auth: 'agent',
    tag: 'compute',
    status: 200,
    summary: "The calling agent's browser sessions, newest first; keyset cursors.",
    query: BrowserSessionsQuery,
    response: BrowserSessionList,
  }),
  /** One browser session (counts as activity while it is open). `GET /v1/compute/browser/sessions/{session_id}` */
  getSession: defineRoute({
    id: 'browser.getSession',
    method: 'GET',
    path: '/v1/compute/browser/sessions/{session_id}',
    auth: 'agent',
    tag: 'compute',
    status: 200,
    summary: 'One browser session (counts as activity while it is open).',
    params: BrowserSessionParams,
    response: BrowserSession,
  }),
  /** Ends a session: its browser is stopped and it shows terminated_reason "closed". `DELETE /v1/compute/browser/sessions/{session_id}` */
  deleteSession: defineRoute({
    id: 'browser.deleteSession',
    method: 'DELETE',
    path: '/v1/compute/browser/sessions/{session_id}',
    auth: 'agent',
    tag: 'compute',
    status: 204,
    summary: 'Ends a session: its browser is stopped and it shows terminated_reason "closed".',
    params: BrowserSessionParams,
  }),
  /** A Base64 PNG of the current viewport of an open session. `GET /v1/compute/browser/sessions/{session_id}/screenshot` */
  screenshot: defineRoute({
    id: 'browser.screenshot',
    method: 'GET',
    path: '/v1/compute/browser/sessions/{session_id}/screenshot',
    auth: 'agent',
    tag: 'compute',
    status: 200,
    summary: 'A Base64 PNG of the current viewport of an open session.',
    params: BrowserSessionParams,
    response: BrowserScreenshot,
  }),
};
