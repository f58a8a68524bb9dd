/**
 * The same client over a real socket: serve a runtime on a free port and talk to it with
 * `connect`, exactly as a test suite or an agent in another process would.
 * In your own project import from 'agent-services' instead of '../src/index.js'.
 */
import { connect, connectSim, createRuntime, serve } from '../src/index.js';

/** Serves a world, creates an agent over HTTP, reads its profile, and shuts down. */
export async function overHttp() {
  const runtime = await createRuntime({ seed: 7 });
  const server = await serve(runtime, { port: 0 });
  try {
    const sim = connectSim({ baseUrl: server.url });
    const { api_key } = await sim.createAgent({ name: 'bob' }, { idempotencyKey: 'create-bob' });
    const bob = connect({ baseUrl: server.url, apiKey: api_key });
    return { url: server.url, profile: await bob.identity.getProfile() };
  } finally {
    await server.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await overHttp(), null, 2));
}
