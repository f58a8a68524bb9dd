/** Raw calls to a runtime for the webhook tests (through `runtime.fetch`, the HTTP shim without a socket). */
import type { Runtime } from '../../../src/index.js';

/** A JSON answer. */
export interface Answer<T = any> {
  status: number;
  body: T;
}

/** Calls `path` on the runtime with an optional API key and JSON body. */
export async function call<T = any>(runtime: Runtime, method: string, path: string, key?: string | null, body?: unknown): Promise<Answer<T>> {
  const headers: Record<string, string> = {};
  if (key) headers.authorization = `Bearer ${key}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await runtime.fetch(new Request(`http://in-process.test${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }));
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as T) : (undefined as T) };
}

/** Deliveries of the control plane, newest first. */
export async function deliveries(runtime: Runtime, query = ''): Promise<Array<Record<string, any>>> {
  return (await call(runtime, 'GET', `/_sim/webhooks/deliveries${query}`)).body.deliveries;
}

/** Polls the deliveries until `done` holds (an attempt's outcome is written once its answer arrives). */
export async function deliveriesWhen(runtime: Runtime, done: (list: Array<Record<string, any>>) => boolean): Promise<Array<Record<string, any>>> {
  for (;;) {
    const list = await deliveries(runtime);
    if (done(list)) return list;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Advances the simulated clock by `seconds`. */
export async function advance(runtime: Runtime, seconds: number): Promise<string> {
  return (await call(runtime, 'POST', '/_sim/clock/advance', null, { seconds })).body.now;
}

/** The simulated clock's time in seconds. */
export async function nowSeconds(runtime: Runtime): Promise<number> {
  return Math.floor(Date.parse((await call(runtime, 'GET', '/_sim/clock')).body.now) / 1000);
}
