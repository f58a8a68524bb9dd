/**
 * Checks every request the API tests send over HTTP (`fetch` and `http` worlds of transports.ts)
 * and every answer they get against the runtime's own `/openapi.json`, with ajv (JSON Schema
 * 2020-12) and ajv-formats: an answer whose status the operation does not document, or whose body
 * does not fit the documented schema, and an accepted (2xx) request whose body, query or headers
 * the document says are invalid, throw from the transport, so the test that sent them fails with
 * the path of the mismatch. The document therefore cannot drift from the code without the suite
 * saying so.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { openApiDocument } from '../../src/http/openapi.js';
import type { Runtime } from '../../src/index.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

type Json = Record<string, any>;

/** One operation of the document, ready to check exchanges against. */
interface Operation {
  id: string;
  method: string;
  pattern: RegExp;
  literals: number;
  op: Json;
}

/** An ajv instance with the formats the document uses (`uri`, `email`, `date`, `date-time`). */
export function documentAjv(options: { coerceTypes?: boolean } = {}): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true, coerceTypes: options.coerceTypes ?? false });
  addFormats(ajv);
  return ajv;
}

/** A mismatch between an exchange and the document. */
export interface Violation {
  operation: string;
  where: string;
  problem: string;
}

/** Validates exchanges against one OpenAPI document. */
export class DocumentChecker {
  private readonly operations: Operation[] = [];
  private readonly ajv = documentAjv();
  private readonly queryAjv = documentAjv({ coerceTypes: true });
  private readonly compiled = new Map<unknown, ValidateFunction>();
  private readonly compiledQueries = new Map<unknown, ValidateFunction>();

  constructor(readonly document: Json) {
    for (const [path, methods] of Object.entries(document.paths as Record<string, Json>)) {
      const segments = path.split('/');
      const pattern = new RegExp(`^${segments.map((s) => (/^\{\w+\}$/.test(s) ? '[^/]+' : s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/')}$`);
      const literals = segments.filter((s) => !/^\{\w+\}$/.test(s)).length;
      for (const [method, op] of Object.entries(methods)) this.operations.push({ id: op.operationId, method: method.toUpperCase(), pattern, literals, op });
    }
    // A literal segment wins over a parameter (`/v1/agent/credentials` before `/v1/agent/{handle}`).
    this.operations.sort((a, b) => b.literals - a.literals);
  }

  /** The documented operation a method and path reach, if any. */
  operationFor(method: string, path: string): Operation | undefined {
    const wanted = method === 'HEAD' ? 'GET' : method;
    return this.operations.find((operation) => operation.method === wanted && operation.pattern.test(path));
  }

  /** The compiled schema (cached by identity; query schemas coerce the strings of a query). */
  private validator(schema: unknown, coerce = false): ValidateFunction {
    const cache = coerce ? this.compiledQueries : this.compiled;
    let validate = cache.get(schema);
    if (!validate) cache.set(schema, (validate = (coerce ? this.queryAjv : this.ajv).compile(schema as object)));
    return validate;
  }

  private problems(schema: unknown, value: unknown, coerce = false): string | undefined {
    const validate = this.validator(schema, coerce);
    if (validate(value)) return undefined;
    return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message} (${e.schemaPath})`).join('; ');
  }

  /**
   * Checks one exchange. `requestBody` is the parsed JSON body (undefined when none or not JSON),
   * `responseBody` likewise.
   */
  check(exchange: {
    method: string;
    path: string;
    query: URLSearchParams;
    headers: Headers;
    requestBody: unknown;
    requestIsJson: boolean;
    status: number;
    responseType: string;
    responseBody: unknown;
    /** False when the answer was too large to read: only its status is checked. */
    responseChecked?: boolean;
  }): Violation[] {
    const operation = this.operationFor(exchange.method, exchange.path);
    if (!operation) return [];
    const out: Violation[] = [];
    const add = (where: string, problem: string) => out.push({ operation: operation.id, where, problem });
    const response = operation.op.responses[String(exchange.status)];
    if (!response) {
      add('status', `${exchange.status} is not a documented answer (documented: ${Object.keys(operation.op.responses).join(', ')})`);
      return out;
    }
    if (exchange.method !== 'HEAD' && exchange.responseChecked !== false) {
      const content = response.content as Json | undefined;
      if (!content) {
        if (exchange.responseBody !== undefined) add('response', `${exchange.status} documents no body, got one`);
      } else if (content['application/json']) {
        if (!exchange.responseType.startsWith('application/json')) add('response content-type', `expected application/json, got ${exchange.responseType}`);
        else {
          const problem = this.problems(content['application/json'].schema, exchange.responseBody);
          if (problem) add(`response ${exchange.status}`, problem);
        }
      } else if (!content['*/*']) {
        const types = Object.keys(content);
        if (!types.some((type) => exchange.responseType.startsWith(type))) add('response content-type', `expected one of ${types.join(', ')}, got ${exchange.responseType}`);
      }
    }
    // A request the server accepted must be one the document calls valid.
    if (exchange.status >= 200 && exchange.status < 300) {
      for (const parameter of (operation.op.parameters ?? []) as Json[]) {
        if (parameter.in === 'query') {
          const values = exchange.query.getAll(parameter.name);
          if (values.length === 0) {
            if (parameter.required) add(`query ${parameter.name}`, 'required, absent');
            continue;
          }
          const problem = this.problems(parameter.schema, { value: values.length === 1 ? values[0] : values }, true);
          if (problem) add(`query ${parameter.name}`, problem);
        } else if (parameter.in === 'header') {
          const value = exchange.headers.get(parameter.name);
          if (value === null) continue;
          const problem = this.problems(parameter.schema, value);
          if (problem) add(`header ${parameter.name}`, problem);
        }
      }
      const documentedQuery = new Set(((operation.op.parameters ?? []) as Json[]).filter((p) => p.in === 'query').map((p) => p.name));
      for (const name of exchange.query.keys()) if (!documentedQuery.has(name)) add(`query ${name}`, 'not a documented parameter, yet accepted');
      const body = operation.op.requestBody?.content?.['application/json'];
      if (body && exchange.requestIsJson) {
        const problem = this.problems(body.schema, exchange.requestBody);
        if (problem) add('request body', problem);
      }
    }
    return out;
  }
}

const checkers = new Map<string, DocumentChecker>();

/** The checker of a runtime's document (cached per route set and control-plane access). */
export function checkerFor(runtime: Runtime): DocumentChecker {
  const routes = runtime.routes();
  const key = `${runtime.adminAccess}:${routes.map((route) => route.id).join(',')}`;
  let checker = checkers.get(key);
  if (!checker) {
    const document = openApiDocument(routes, runtime.config, { adminAccess: runtime.adminAccess });
    checker = new DocumentChecker(wrapQuerySchemas(document));
    checkers.set(key, checker);
  }
  return checker;
}

/** Query parameter schemas wrapped as `{value: schema}` objects (see DocumentChecker.problems). */
function wrapQuerySchemas(document: Json): Json {
  for (const methods of Object.values(document.paths as Record<string, Json>)) {
    for (const op of Object.values(methods)) {
      for (const parameter of (op.parameters ?? []) as Json[]) {
        if (parameter.in === 'query') parameter.schema = { type: 'object', required: ['value'], properties: { value: parameter.schema } };
      }
    }
  }
  return document;
}

/** Request and answer bodies over this many bytes are not checked. */
const BODY_CHECK_CAP = 1024 * 1024;

/** The text of a request's body, or undefined past `cap` bytes (the copy is then cancelled) or when it fails. */
async function readCapped(request: Request | Response, cap: number): Promise<string | undefined> {
  const reader = request.body!.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > cap) {
        await reader.cancel();
        return undefined;
      }
      chunks.push(value);
    }
  } catch {
    return undefined;
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Wraps a transport's `send` so that every exchange is checked against the runtime's document; a mismatch rejects the call. */
export function recordingSend(runtime: Runtime, send: (request: Request) => Promise<Response>): (request: Request) => Promise<Response> {
  return async (request) => {
    const url = new URL(request.url);
    const requestType = request.headers.get('content-type') ?? '';
    const requestIsJson = /^application\/(?:[\w.+-]*\+)?json/i.test(requestType);
    // The body is read from a copy alongside the send (never before it), and only up to a cap:
    // tests of large and streamed bodies keep their timing, and their bodies are not checked.
    const copied = requestIsJson && request.body ? readCapped(request.clone(), BODY_CHECK_CAP) : Promise.resolve(undefined);
    const sent = await send(request);
    // A JSON answer is read here and handed on as a new Response of the same text: a clone's
    // second branch would hold a large answer back (undici's tee).
    const response = sent.headers.get('content-type')?.startsWith('application/json') && sent.body ? new Response(await sent.text(), { status: sent.status, statusText: sent.statusText, headers: sent.headers }) : sent;
    const copiedText = await copied;
    let requestBody: unknown;
    if (copiedText !== undefined) {
      try {
        requestBody = JSON.parse(copiedText);
      } catch {
        requestBody = undefined;
      }
    }
    const checker = checkerFor(runtime);
    if (!checker.operationFor(request.method, url.pathname)) return response;
    const responseType = response.headers.get('content-type') ?? '';
    let responseBody: unknown;
    let unchecked = false;
    if (responseType.startsWith('application/json')) {
      const text = response.body ? await response.clone().text() : '';
      // An answer over the cap (a 24 MB file read back) is not checked: the status still is.
      if (text.length > BODY_CHECK_CAP) unchecked = true;
      else responseBody = text === '' ? undefined : JSON.parse(text);
    } else if (response.status === 204 || request.method === 'HEAD') {
      responseBody = undefined;
    } else if (!responseType) {
      const text = await response.clone().text();
      responseBody = text === '' ? undefined : text;
    }
    const violations = checker.check({
      method: request.method,
      path: url.pathname,
      query: url.searchParams,
      headers: request.headers,
      requestBody,
      requestIsJson: requestIsJson && requestBody !== undefined,
      status: response.status,
      responseType,
      responseChecked: !unchecked,
      responseBody,
    });
    if (violations.length > 0) {
      const lines = violations.map((v) => `${v.operation} ${v.where}: ${v.problem}`).join('\n');
      throw new Error(`OpenAPI drift on ${request.method} ${url.pathname}:\n${lines}`);
    }
    return response;
  };
}
