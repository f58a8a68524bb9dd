import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { AgentClient } from '../runtime/clients.js';

/**
 * An MCP server whose tools are the agent endpoints of the API, one per route (`wallet_send`,
 * `email_send`, ...), answered through `client`: `runtime.agent(apiKey)` in-process or
 * `connect({baseUrl, apiKey})` over HTTP. Connect it to any MCP transport. The MCP SDK is loaded
 * here, on first use, so importing the package does not pay for it.
 */
export async function createMcpServer(client: AgentClient): Promise<Server> {
  const { buildMcpServer } = await import('./mcp-server.js');
  return buildMcpServer(client);
}
