import { z } from 'zod';
import type { RouteDefinition } from '../core/api/route.js';
import type { ServiceConfig } from '../core/shared/service-config.js';
import { ERROR_STATUS } from '../core/shared/api-error.js';

type JsonSchema = Record<string, unknown>;

function schemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as JsonSchema;
  return rest;
}

/** OpenAPI parameters of a params or query schema (an object schema). */
function parametersOf(schema: z.ZodType | undefined, where: 'path' | 'query'): JsonSchema[] {
  if (!schema) return [];
  const json = schemaOf(schema, 'output');
  const properties = (json.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((json.required as string[] | undefined) ?? []);
  return Object.entries(properties).map(([name, property]) => ({
    name,
    in: where,
    required: where === 'path' || (required.has(name) && property.default === undefined),
    schema: property,
  }));
}

const ERROR_BODY: JsonSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: { code: { type: 'string', enum: Object.keys(ERROR_STATUS) }, message: { type: 'string' }, param: { type: 'string' } },
    },
  },
};

/** One OpenAPI operation for a route. */
function operationOf(route: RouteDefinition): JsonSchema {
  const success = route.binary
    ? { description: 'The file bytes', content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } }
    : route.status === 204 || !route.response
      ? { description: 'No content' }
      : { description: 'Success', content: { 'application/json': { schema: schemaOf(route.response, 'output') } } };
  const security = route.auth === 'public' ? [] : [{ [route.auth === 'admin' ? 'adminToken' : 'apiKey']: [] }];
  return {
    operationId: route.id,
    summary: route.summary,
    tags: [route.tag],
    security,
    parameters: [
      ...parametersOf(route.params, 'path'),
      ...parametersOf(route.query, 'query'),
      ...(route.method === 'POST' ? [{ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: 255 } }] : []),
    ],
    ...(route.upload
      ? {
          requestBody: {
            required: true,
            content: {
              'multipart/form-data': {
                schema: { type: 'object', required: [route.upload.field], properties: { [route.upload.field]: { type: 'string', format: 'binary' } } },
              },
            },
          },
        }
      : {}),
    ...(route.body ? { requestBody: { required: true, content: { 'application/json': { schema: schemaOf(route.body, 'input') } } } } : {}),
    responses: {
      [String(route.status)]: success,
      default: { description: 'Error (DECISIONS.md error table)', content: { 'application/json': { schema: ERROR_BODY } } },
    },
  };
}

/** The OpenAPI 3.1 document of every route, generated from the routes' zod schemas. */
export function openApiDocument(routes: RouteDefinition[], config: ServiceConfig): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operationOf(route);
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Agent Services API', version: '1', description: `Wallet, email, memory, phone, identity and compute for agents on ${config.serviceDomain}.` },
    servers: [{ url: config.baseUrl }],
    components: {
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: "The agent's API key" },
        adminToken: { type: 'http', scheme: 'bearer', description: 'The admin token of the simulation control plane, when one is configured' },
      },
    },
    paths,
  };
}
