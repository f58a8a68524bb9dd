import { afterEach, describe, expect, it } from 'vitest';
import { createRuntime, serve, type AreaEdge, type Runtime, type RunningServer } from '../../../src/index.js';

/** An edge at `/slow` whose answers wait until `release()` is called; `entered` resolves when a request reached it. */
function slowEdge() {
  let release!: () => void;
  let entered!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const reached = new Promise<void>((resolve) => (entered = resolve));
  const edge: AreaEdge = {
    kind: 'http',
    prefix: '/slow',
    fetch: async () => {
      entered();
      await released;
      return new Response('finished', { status: 200 });
    },
  };
  return { edge, release, reached };
}

describe('graceful stop of a served runtime', () => {
  let runtime: Runtime | undefined;
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.close().catch(() => {});
    await runtime?.close();
    server = runtime = undefined;
  });

  it('refuses new connections, lets the request in flight finish, then resolves with nothing cut', async () => {
    runtime = await createRuntime({ seed: 1 });
    const slow = slowEdge();
    runtime.addEdge(slow.edge);
    server = await serve(runtime, { port: 0 });
    const inFlight = fetch(`${server.url}/slow`);
    await slow.reached;

    const stopped = server.shutdown(600_000);
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
    slow.release();
    const answer = await inFlight;
    expect(answer.status).toBe(200);
    expect(await answer.text()).toBe('finished');
    expect(await stopped).toEqual({ cut: 0 });
  });

  it('cuts a request still running when the shutdown timeout passes', async () => {
    runtime = await createRuntime({ seed: 1 });
    const slow = slowEdge();
    runtime.addEdge(slow.edge);
    server = await serve(runtime, { port: 0 });
    const inFlight = fetch(`${server.url}/slow`);
    await slow.reached;
    expect(await server.shutdown(1)).toEqual({ cut: 1 });
    await expect(inFlight).rejects.toThrow();
    slow.release();
  });
});
