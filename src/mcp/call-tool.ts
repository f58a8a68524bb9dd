import type { Download, UploadInput } from '../core/api/binary.js';
import type { AgentClient } from '../runtime/clients.js';
import { ApiError } from '../core/shared/api-error.js';
import type { ArgumentPlace, ToolSpec } from './tool-catalog.js';

/** What a tool call answers, in the shape of MCP's `CallToolResult`. */
export interface ToolResult {
  [key: string]: unknown;
  content: Array<{ type: 'text'; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The tool arguments sorted back into the path parameters, query and body of the call. */
function split(tool: ToolSpec, args: Record<string, unknown>): Record<ArgumentPlace, Record<string, unknown>> {
  const parts: Record<ArgumentPlace, Record<string, unknown>> = { params: {}, query: {}, body: {} };
  // An undeclared argument goes where the API will judge it (an unknown body or query field is
  // 400 invalid_request there), so the API stays the one place that validates.
  const fallback: ArgumentPlace = tool.route.body || tool.route.upload ? 'body' : 'query';
  for (const [name, value] of Object.entries(args)) parts[tool.places.get(name) ?? fallback][name] = value;
  return parts;
}

/** The path parameters as the derived client takes them: one as its string, several as an object. @throws ApiError 400 invalid_request */
function pathArguments(tool: ToolSpec, params: Record<string, unknown>): unknown[] {
  const names = [...tool.route.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
  for (const name of names) {
    if (typeof params[name] !== 'string') throw new ApiError('invalid_request', `${name}: expected a string, got ${params[name] === undefined ? 'nothing' : JSON.stringify(params[name])}`, name);
  }
  if (names.length === 0) return [];
  return names.length === 1 ? [params[names[0]!]] : [params];
}

/** The upload input of an upload tool's arguments. @throws ApiError 400 invalid_request */
function uploadOf(body: Record<string, unknown>): UploadInput {
  const { filename, content_type: contentType, content_base64: content, ...rest } = body;
  const unknown = Object.keys(rest)[0];
  if (unknown !== undefined) throw new ApiError('invalid_request', `${unknown}: unknown field; an upload takes filename, content_type and content_base64`, unknown);
  if (typeof filename !== 'string' || filename === '') throw new ApiError('invalid_request', `filename: expected a non-empty string, got ${JSON.stringify(filename ?? null)}`, 'filename');
  if (contentType !== undefined && typeof contentType !== 'string') throw new ApiError('invalid_request', `content_type: expected a string, got ${JSON.stringify(contentType)}`, 'content_type');
  if (typeof content !== 'string' || content.length % 4 !== 0 || !BASE64.test(content)) {
    throw new ApiError('invalid_request', 'content_base64: expected the file bytes as standard Base64 (padded)', 'content_base64');
  }
  return { filename, ...(contentType ? { content_type: contentType } : {}), data: new Uint8Array(Buffer.from(content, 'base64')) };
}

/** A JSON answer as MCP content: the text of the JSON and, for objects, the same as structured content. */
function jsonResult(value: unknown, isError = false): ToolResult {
  const result: ToolResult = { content: [{ type: 'text', text: JSON.stringify(value) }] };
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) result.structuredContent = value as Record<string, unknown>;
  if (isError) result.isError = true;
  return result;
}

/** An API error as a tool error: the code and message first in the text, the error body as structured content. */
export function errorResult(error: ApiError): ToolResult {
  const param = error.param ? ` (param: ${error.param})` : '';
  return {
    content: [{ type: 'text', text: `${error.code}: ${error.message}${param} [HTTP ${error.status}]` }],
    structuredContent: error.toBody() as unknown as Record<string, unknown>,
    isError: true,
  };
}

/**
 * Runs one tool through the agent's client (in-process or over HTTP): the arguments become the
 * call's path, query and body, the answer becomes the tool's result and an API error a tool error
 * (`isError: true`). It never throws.
 */
export async function callTool(client: AgentClient, tool: ToolSpec, args: Record<string, unknown>): Promise<ToolResult> {
  try {
    const parts = split(tool, args);
    const callArgs = pathArguments(tool, parts.params);
    if (tool.route.upload) callArgs.push(uploadOf(parts.body));
    else if (tool.route.body) callArgs.push(parts.body);
    else if (tool.route.query) callArgs.push(parts.query);
    else {
      const unknown = Object.keys(parts.query)[0];
      if (unknown !== undefined) throw new ApiError('invalid_request', `${unknown}: unknown argument; ${tool.name} takes ${[...tool.places.keys()].join(', ') || 'none'}`, unknown);
    }
    const namespace = (client as unknown as Record<string, Record<string, (...values: unknown[]) => Promise<unknown>>>)[tool.area]!;
    const answer = await namespace[tool.action]!(...callArgs);
    if (tool.answer === 'empty') return jsonResult({});
    if (tool.answer === 'download') {
      const file = answer as Download;
      return jsonResult({ filename: file.filename, content_type: file.content_type, size: file.size, content_base64: Buffer.from(file.bytes).toString('base64') });
    }
    return jsonResult(answer);
  } catch (error) {
    if (error instanceof ApiError) return errorResult(error);
    // Not an answer of the API: the server could not be reached, or the call broke on the way.
    return { content: [{ type: 'text', text: `request_failed: ${error instanceof Error ? error.message : String(error)}` }], isError: true };
  }
}
