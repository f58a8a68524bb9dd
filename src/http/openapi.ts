import { z } from 'zod';
import type { RouteDefinition } from '../core/api/route.js';
import type { ServiceConfig } from '../core/shared/service-config.js';
import { ERROR_STATUS, type ErrorCode } from '../core/shared/api-error.js';
import { IDEMPOTENCY_KEY_MAX } from '../core/services/idempotency.js';
import { errorCodesOf } from './operation-errors.js';

type JsonSchema = Record<string, unknown>;

/** Who reaches the `/_sim` control plane (see `Runtime.adminAccess`). */
export type AdminAccess = 'open' | 'token' | 'hidden';

/**
 * Rewrites what zod writes into forms every common tool loads: a tuple's `items: false` beside
 * `prefixItems` (closed by `maxItems` already) is dropped, since several OpenAPI 3.1 tools reject a
 * boolean schema there.
 */
function portable(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(portable);
  if (node === null || typeof node !== 'object') return node;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node as JsonSchema)) {
    if (key === 'items' && value === false && 'prefixItems' in (node as JsonSchema)) continue;
    out[key] = portable(value);
  }
  return out;
}

function schemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as JsonSchema;
  return portable(rest) as JsonSchema;
}

/** OpenAPI parameters of a params or query schema (an object schema). */
function parametersOf(schema: z.ZodType | undefined, where: 'path' | 'query'): JsonSchema[] {
  if (!schema) return [];
  const json = schemaOf(schema, 'input');
  const properties = (json.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((json.required as string[] | undefined) ?? []);
  return Object.entries(properties).map(([name, property]) => ({
    name,
    in: where,
    required: where === 'path' || (required.has(name) && property.default === undefined),
    schema: property,
  }));
}

/** The DECISIONS.md error body whose `code` is one of `codes`. */
function errorBody(codes: ErrorCode[]): JsonSchema {
  return {
    type: 'object',
    required: ['error'],
    additionalProperties: false,
    properties: {
      error: {
        type: 'object',
        required: ['code', 'message'],
        additionalProperties: false,
        properties: { code: { type: 'string', enum: codes }, message: { type: 'string', minLength: 1 }, param: { type: 'string' } },
      },
    },
  };
}

const DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid request',
  401: 'Missing, malformed or unknown credentials',
  402: 'Insufficient funds',
  404: 'Not found',
  409: 'Conflict',
  413: 'Payload too large',
  415: 'Unsupported media type',
  429: 'Rate limited (with Retry-After)',
  500: 'Internal error',
};

/** One response per error status the operation can answer, each naming its codes. */
function errorResponses(route: RouteDefinition): Record<string, JsonSchema> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodesOf(route)) {
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<string, JsonSchema> = {};
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[String(status)] = {
      description: `${DESCRIPTIONS[status] ?? 'Error'}: ${codes.join(', ')}`,
      ...(status === 429 ? { headers: { 'Retry-After': { schema: { type: 'integer', minimum: 0 } } } } : {}),
      content: { 'application/json': { schema: errorBody(codes) } },
    };
  }
  return responses;
}

/** The success answer: JSON, nothing (204), or file bytes with the type they were stored with. */
function successOf(route: RouteDefinition): JsonSchema {
  if (route.binary) {
    return {
      description: 'The file bytes, with the Content-Type they were stored with (application/octet-stream when none was given)',
      headers: {
        'Content-Disposition': { schema: { type: 'string' } },
        'Content-Length': { schema: { type: 'integer', minimum: 0 } },
      },
      content: { '*/*': { schema: { type: 'string', format: 'binary' } } },
    };
  }
  if (route.status === 204 || !route.response) return { description: 'No content' };
  return { description: 'Success', content: { 'application/json': { schema: schemaOf(route.response, 'output') } } };
}

/** The security requirement of a route: none, the agent's key, or the control plane's as configured. */
function securityOf(route: RouteDefinition, admin: AdminAccess): JsonSchema[] {
  if (route.auth === 'public') return [];
  if (route.auth === 'agent') return [{ apiKey: [] }];
  return admin === 'token' ? [{ adminToken: [] }] : [{}];
}

/** One OpenAPI operation for a route. */
function operationOf(route: RouteDefinition, admin: AdminAccess): JsonSchema {
  const requestBody = route.upload
    ? {
        required: true,
        content: {
          'multipart/form-data': {
            schema: { type: 'object', required: [route.upload.field], properties: { [route.upload.field]: { type: 'string', format: 'binary' } } },
          },
        },
      }
    : route.body
      ? { required: true, content: { 'application/json': { schema: schemaOf(route.body, 'input') } } }
      : undefined;
  return {
    operationId: route.id,
    summary: route.summary,
    tags: [route.tag],
    security: securityOf(route, admin),
    parameters: [
      ...parametersOf(route.params, 'path'),
      ...parametersOf(route.query, 'query'),
      ...(route.method === 'POST' ? [{ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX } }] : []),
    ],
    ...(requestBody ? { requestBody } : {}),
    responses: { [String(route.status)]: successOf(route), ...errorResponses(route) },
  };
}

/** Options of {@link openApiDocument}. */
export interface OpenApiOptions {
  /** How the control plane is reached (default `open`): its routes are left out when `hidden`. */
  adminAccess?: AdminAccess;
}

/**
 * The OpenAPI 3.1 document of every route, generated from the routes' zod schemas: every check a
 * schema makes is in it (patterns, formats, lengths, oneOf/anyOf rules), with every error status
 * and code each operation can answer and the control plane's security as configured.
 */
export function openApiDocument(routes: RouteDefinition[], config: ServiceConfig, options: OpenApiOptions = {}): JsonSchema {
  const admin = options.adminAccess ?? 'open';
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    if (route.auth === 'admin' && admin === 'hidden') continue;
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operationOf(route, admin);
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Agent Services API', version: '1', description: `Wallet, email, memory, phone, identity and compute for agents on ${config.serviceDomain}.` },
    servers: [{ url: config.baseUrl }],
    components: {
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: "The agent's API key" },
        adminToken: { type: 'http', scheme: 'bearer', description: 'The admin token of the simulation control plane (/_sim), required when one is configured' },
      },
    },
    paths,
  };
}
