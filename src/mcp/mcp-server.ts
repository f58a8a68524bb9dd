import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { AgentClient } from '../runtime/clients.js';
import { callTool } from './call-tool.js';
import { agentTools, type ToolSpec } from './tool-catalog.js';

/** Name and version the server announces to MCP clients. */
export const MCP_SERVER_INFO = { name: 'agent-services', version: '0.1.0' } as const;

let catalog: { specs: Map<string, ToolSpec>; listed: Tool[] } | undefined;

/** The tools, built once per process from the route tables (they never change while it runs). */
function toolCatalog(): { specs: Map<string, ToolSpec>; listed: Tool[] } {
  catalog ??= (() => {
    const specs = new Map<string, ToolSpec>();
    const listed: Tool[] = [];
    for (const spec of agentTools()) {
      specs.set(spec.name, spec);
      const { method } = spec.route;
      listed.push({
        name: spec.name,
        title: spec.route.id,
        description: spec.description,
        inputSchema: spec.inputSchema,
        annotations: {
          readOnlyHint: method === 'GET',
          destructiveHint: method === 'DELETE',
          idempotentHint: method === 'GET' || method === 'DELETE' || method === 'PUT',
          // Every tool acts on the service; a send may reach the outside (mail, chains, banks).
          openWorldHint: spec.route.id === 'wallet.send' || spec.route.id === 'email.send' || spec.route.id === 'email.reply',
        },
      });
    }
    return { specs, listed };
  })();
  return catalog;
}

/**
 * The MCP server of `client`'s agent (see `createMcpServer`, which loads this module lazily): one
 * tool per agent route, each call answered through the client.
 */
export function buildMcpServer(client: AgentClient): Server {
  // The low-level Server, not McpServer: tools are declared with the JSON Schema generated from
  // the route tables, and the API itself validates the arguments, so a bad argument is the same
  // 400 invalid_request tool error it would be over HTTP.
  const server = new Server(MCP_SERVER_INFO, {
    capabilities: { tools: { listChanged: false } },
    instructions:
      "Tools of the Agent Services API, acting as one agent (the API key's owner): wallet, email, memory and identity. Each tool's result is the API's JSON answer; an API error is a tool error whose text starts with its code.",
  });
  const { specs, listed } = toolCatalog();
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const spec = specs.get(request.params.name);
    if (!spec) {
      return { content: [{ type: 'text' as const, text: `not_found: no tool named ${request.params.name}` }], isError: true };
    }
    return callTool(client, spec, request.params.arguments ?? {});
  });
  return server;
}
