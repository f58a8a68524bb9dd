/**
 * The MCP side of the package: the agent endpoints as MCP tools, over Streamable HTTP (`/mcp`) or
 * stdio. Nothing here loads the MCP SDK until a server is made.
 */
export { createMcpServer } from './create-mcp-server.js';
export { mcpEdge, MCP_PATH } from './mcp-edge.js';
export { serveMcpStdio } from './stdio.js';
export { agentTools, toolNameOf, type ToolSpec, type JsonSchema } from './tool-catalog.js';
export { callTool, type ToolResult } from './call-tool.js';
