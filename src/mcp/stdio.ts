import type { AgentClient } from '../runtime/clients.js';

/**
 * Serves the MCP tools of `client`'s agent over stdin and stdout (what MCP clients such as Claude
 * Desktop spawn). Resolves when the client closes the connection (its input ends).
 */
export async function serveMcpStdio(client: AgentClient, streams: { stdin?: NodeJS.ReadableStream; stdout?: NodeJS.WritableStream } = {}): Promise<void> {
  const [{ StdioServerTransport }, { buildMcpServer }] = await Promise.all([import('@modelcontextprotocol/sdk/server/stdio.js'), import('./mcp-server.js')]);
  const server = buildMcpServer(client);
  const input = streams.stdin ?? process.stdin;
  const transport = new StdioServerTransport(input as never, (streams.stdout ?? process.stdout) as never);
  const closed = new Promise<void>((resolve) => {
    server.onclose = resolve;
    input.once('end', resolve);
    input.once('close', resolve);
  });
  await server.connect(transport);
  await closed;
  await server.close();
}
