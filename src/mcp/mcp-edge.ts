import type { AreaEdge } from '../runtime/areas/area-module.js';
import type { Runtime } from '../runtime/create-runtime.js';

/** Where the Streamable HTTP endpoint is mounted. */
export const MCP_PATH = '/mcp';

/** `Bearer <token>` → token, else null. */
function bearerOf(header: string | null): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match ? match[1]! : null;
}

function unauthorized(message: string): Response {
  return new Response(JSON.stringify({ error: { code: 'unauthorized', message } }), {
    status: 401,
    headers: { 'content-type': 'application/json', 'www-authenticate': 'Bearer realm="agent-services", error="invalid_token"' },
  });
}

/**
 * The MCP endpoint as an HTTP edge of `runtime` (Streamable HTTP at `/mcp`, the agent's API key as
 * Bearer). Stateless: each POST gets its own server acting as the key's agent, answered as JSON,
 * so any number of clients and server instances need no shared session state. The MCP SDK is
 * loaded on the first request, so a server that never sees one does not pay for it.
 */
export function mcpEdge(runtime: Runtime): AreaEdge {
  return {
    kind: 'http',
    prefix: MCP_PATH,
    async fetch(request) {
      const key = bearerOf(request.headers.get('authorization'));
      if (!key) return unauthorized("missing API key: send Authorization: Bearer <API_KEY> (the agent's key)");
      // The same check every /v1 call makes, through the dispatcher: an unknown key is 401 here too.
      const probe = await runtime.dispatch({ routeId: 'identity.getProfile', bearer: key, signal: request.signal });
      if (probe.status === 401) return unauthorized('unknown API key');
      // Stateless: no standalone SSE stream to GET (the tools send no notifications) and no
      // session to DELETE; the specification answers both with 405.
      if (request.method !== 'POST') {
        return new Response(JSON.stringify({ error: { code: 'method_not_allowed', message: `${request.method} ${MCP_PATH}: this endpoint is stateless; send JSON-RPC messages with POST` } }), {
          status: 405,
          headers: { 'content-type': 'application/json', allow: 'POST' },
        });
      }
      const [{ WebStandardStreamableHTTPServerTransport }, { buildMcpServer }] = await Promise.all([import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'), import('./mcp-server.js')]);
      const server = buildMcpServer(runtime.agent(key));
      // No sessionIdGenerator: the stateless mode of the SDK.
      const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
      await server.connect(transport);
      try {
        return await transport.handleRequest(request);
      } finally {
        await server.close();
      }
    },
  };
}
