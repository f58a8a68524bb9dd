import { z } from 'zod';
import type { RouteDefinition } from '../core/api/route.js';
import { AGENT_ROUTE_TABLES } from '../runtime/clients.js';

/** A JSON Schema object, as MCP carries it. */
export type JsonSchema = Record<string, unknown>;

/** Where a tool argument goes in the API call. */
export type ArgumentPlace = 'params' | 'query' | 'body';

/** One MCP tool, derived from one agent route. */
export interface ToolSpec {
  /** `wallet_send`: the route id with `_` for `.` and camelCase actions in snake_case. */
  name: string;
  /** The route's area, the namespace of the derived `AgentClient` (`wallet`). */
  area: string;
  /** The route's action, the method of that namespace (`send`). */
  action: string;
  route: RouteDefinition;
  description: string;
  inputSchema: JsonSchema & { type: 'object' };
  /** Which part of the request each declared argument belongs to. */
  places: ReadonlyMap<string, ArgumentPlace>;
  /** What the call answers: JSON, file bytes as Base64 (downloads) or nothing (204). */
  answer: 'json' | 'download' | 'empty';
}

/** The arguments of an upload tool (the multipart file, as Base64). */
export const UPLOAD_ARGUMENTS = ['filename', 'content_type', 'content_base64'] as const;

/** `identity.getProfile` → `identity_get_profile`. */
export function toolNameOf(routeId: string): string {
  return routeId.replace(/\./g, '_').replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as JsonSchema;
  return rest;
}

/** Properties and required names of an object schema; `optionalDefaults` drops fields that have a default from `required`. */
function fieldsOf(schema: z.ZodType, io: 'input' | 'output', optionalDefaults: boolean): { properties: Record<string, JsonSchema>; required: string[] } {
  const json = jsonSchemaOf(schema, io);
  const properties = (json.properties ?? {}) as Record<string, JsonSchema>;
  const required = ((json.required as string[] | undefined) ?? []).filter((name) => !(optionalDefaults && properties[name]?.default !== undefined));
  return { properties, required };
}

const UPLOAD_FIELDS = {
  properties: {
    filename: { type: 'string', minLength: 1, description: 'Name of the file, with its extension (the service goes by it to index documents).' },
    content_type: { type: 'string', description: 'MIME type (default application/octet-stream).' },
    content_base64: { type: 'string', contentEncoding: 'base64', description: 'The file bytes, Base64-encoded.' },
  },
  required: ['filename', 'content_base64'],
} satisfies { properties: Record<string, JsonSchema>; required: string[] };

/**
 * The tool of one route: its arguments are the path, query and body fields side by side, taken
 * from the route's own zod schemas (path and query as the API reads them, the body as it may be
 * sent), so the tool cannot disagree with the API.
 * @throws Error when two parts of the route declare the same field name
 */
export function toolOf(area: string, action: string, route: RouteDefinition): ToolSpec {
  const places = new Map<string, ArgumentPlace>();
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const parts: Array<[ArgumentPlace, { properties: Record<string, JsonSchema>; required: string[] } | undefined]> = [
    ['params', route.params ? fieldsOf(route.params, 'output', false) : undefined],
    ['query', route.query ? fieldsOf(route.query, 'output', true) : undefined],
    ['body', route.upload ? UPLOAD_FIELDS : route.body ? fieldsOf(route.body, 'input', true) : undefined],
  ];
  for (const [place, fields] of parts) {
    if (!fields) continue;
    for (const [name, schema] of Object.entries(fields.properties)) {
      if (places.has(name)) throw new Error(`route ${route.id}: field ${name} is both in ${places.get(name)} and ${place}`);
      places.set(name, place);
      properties[name] = schema;
    }
    required.push(...fields.required);
  }
  const answer = route.binary ? 'download' : route.status === 204 ? 'empty' : 'json';
  const returns = answer === 'download' ? ' Answers {filename, content_type, size, content_base64}.' : answer === 'empty' ? ' Answers {} on success.' : '';
  return {
    name: toolNameOf(route.id),
    area,
    action,
    route,
    description: `${route.summary} (${route.method} ${route.path})${returns}`,
    inputSchema: { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false },
    places,
    answer,
  };
}

/** Every tool: one per agent-key and public route of the route tables, in table order. */
export function agentTools(): ToolSpec[] {
  const tools: ToolSpec[] = [];
  for (const [area, table] of Object.entries(AGENT_ROUTE_TABLES)) {
    for (const [action, route] of Object.entries(table as Record<string, RouteDefinition>)) {
      if (route.auth === 'agent' || route.auth === 'public') tools.push(toolOf(area, action, route));
    }
  }
  return tools;
}
