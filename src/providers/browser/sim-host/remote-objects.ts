// Runtime-domain values of the simulated browser: evaluation in a page's VM context and the
// RemoteObject form of results, as Chromium reports them.
import vm from 'node:vm';

/** A CDP RemoteObject. */
export type RemoteObject = Record<string, unknown>;

/** A CDP call argument. */
export interface CallArgument {
  value?: unknown;
  unserializableValue?: string;
  objectId?: string;
}

/** Thrown for protocol errors (answered as `{error: {code, message}}`). */
export class ProtocolError extends Error {
  constructor(
    message: string,
    readonly code = -32000,
  ) {
    super(message);
  }
}

/** An evaluation's answer: a result, or a result with the exception's details. */
export type EvaluationAnswer = { result: RemoteObject; exceptionDetails?: Record<string, unknown> } & Record<string, unknown>;

/** Holds the objects a client refers to by objectId, per execution context. */
export class RemoteObjects {
  private readonly objects = new Map<string, { value: unknown; contextId: number }>();
  private next = 1;

  /** The value behind an objectId. @throws ProtocolError when it is unknown */
  get(objectId: string): { value: unknown; contextId: number } {
    const found = this.objects.get(objectId);
    if (!found) throw new ProtocolError('Could not find object with given id');
    return found;
  }

  release(objectId: string): void {
    this.objects.delete(objectId);
  }

  /** Forgets every object of contexts that no longer exist. */
  dropContexts(alive: (contextId: number) => boolean): void {
    for (const [id, entry] of this.objects) if (!alive(entry.contextId)) this.objects.delete(id);
  }

  /** Decodes a call argument. */
  argument(argument: CallArgument): unknown {
    if (argument.objectId !== undefined) return this.get(argument.objectId).value;
    if (argument.unserializableValue !== undefined) return unserializable(argument.unserializableValue);
    return argument.value;
  }

  /** The RemoteObject of a value. */
  wrap(value: unknown, contextId: number, byValue: boolean, window: any): RemoteObject {
    switch (typeof value) {
      case 'undefined':
        return { type: 'undefined' };
      case 'boolean':
      case 'string':
        return { type: typeof value, value };
      case 'number':
        return Number.isFinite(value) && !Object.is(value, -0)
          ? { type: 'number', value, description: String(value) }
          : { type: 'number', unserializableValue: Object.is(value, -0) ? '-0' : String(value), description: String(value) };
      case 'bigint':
        return { type: 'bigint', unserializableValue: `${value}n`, description: `${value}n` };
      default:
        break;
    }
    if (value === null) return { type: 'object', subtype: 'null', value: null };
    if (byValue && typeof value !== 'symbol' && typeof value !== 'function') {
      try {
        return { type: 'object', value: JSON.parse(JSON.stringify(value) ?? 'null') };
      } catch {
        throw new ProtocolError('Object reference chain is too long');
      }
    }
    const objectId = `${contextId}.${this.next++}`;
    this.objects.set(objectId, { value, contextId });
    if (typeof value === 'symbol') return { type: 'symbol', description: value.toString(), objectId };
    if (typeof value === 'function') return { type: 'function', className: 'Function', description: describeFunction(value), objectId };
    return { type: 'object', ...describeObject(value as object, window), objectId };
  }

  /** Evaluates an expression in a window's context. */
  async evaluate(window: any, contextId: number, expression: string, options: { byValue: boolean; awaitPromise: boolean }): Promise<EvaluationAnswer> {
    return this.settle(() => new vm.Script(expression, { filename: 'evaluate' }).runInContext(window), window, contextId, options);
  }

  /** Calls a function declaration with a `this` and arguments in a window's context. */
  async call(window: any, contextId: number, declaration: string, self: unknown, args: unknown[], options: { byValue: boolean; awaitPromise: boolean }): Promise<EvaluationAnswer> {
    return this.settle(
      () => {
        const fn = new vm.Script(`(${declaration}\n)`, { filename: 'callFunctionOn' }).runInContext(window) as (...values: unknown[]) => unknown;
        if (typeof fn !== 'function') throw new ProtocolError('Given expression does not evaluate to a function');
        return fn.apply(self, args);
      },
      window,
      contextId,
      options,
    );
  }

  private async settle(run: () => unknown, window: any, contextId: number, options: { byValue: boolean; awaitPromise: boolean }): Promise<EvaluationAnswer> {
    try {
      let value = run();
      if (options.awaitPromise && value !== null && typeof (value as { then?: unknown })?.then === 'function') value = await value;
      return { result: this.wrap(value, contextId, options.byValue, window) };
    } catch (error) {
      if (error instanceof ProtocolError) throw error;
      const exception = this.wrap(error, contextId, false, window);
      const message = error !== null && typeof error === 'object' && 'message' in error ? String((error as Error).message) : String(error);
      return {
        result: exception,
        exceptionDetails: { exceptionId: this.next++, text: 'Uncaught', lineNumber: 0, columnNumber: 0, exception: { ...exception, description: describeError(error) ?? message } },
      };
    }
  }
}

function unserializable(text: string): unknown {
  if (text === 'NaN') return NaN;
  if (text === 'Infinity') return Infinity;
  if (text === '-Infinity') return -Infinity;
  if (text === '-0') return -0;
  if (/^-?\d+n$/.test(text)) return BigInt(text.slice(0, -1));
  throw new ProtocolError(`Unsupported unserializable value ${text}`);
}

function describeFunction(fn: Function): string {
  try {
    return Function.prototype.toString.call(fn).slice(0, 200);
  } catch {
    return 'function';
  }
}

function describeError(error: unknown): string | undefined {
  if (error === null || typeof error !== 'object') return undefined;
  const stack = (error as { stack?: unknown }).stack;
  if (typeof stack === 'string' && stack) return stack;
  const { name, message } = error as { name?: unknown; message?: unknown };
  return message === undefined ? undefined : `${String(name ?? 'Error')}: ${String(message)}`;
}

function describeObject(value: object, window: any): Record<string, unknown> {
  const className = (value as { constructor?: { name?: string } }).constructor?.name || 'Object';
  if (typeof (value as { nodeType?: unknown }).nodeType === 'number' && window.Node && value instanceof window.Node) {
    return { subtype: 'node', className, description: describeNode(value) };
  }
  if (Array.isArray(value)) return { subtype: 'array', className: 'Array', description: `Array(${value.length})` };
  if (value instanceof Error || (window.Error && value instanceof window.Error)) return { subtype: 'error', className, description: describeError(value) ?? className };
  if (typeof (value as { then?: unknown }).then === 'function') return { subtype: 'promise', className: 'Promise', description: 'Promise' };
  if (value instanceof Map || (window.Map && value instanceof window.Map)) return { subtype: 'map', className: 'Map', description: `Map(${(value as Map<unknown, unknown>).size})` };
  if (value instanceof Set || (window.Set && value instanceof window.Set)) return { subtype: 'set', className: 'Set', description: `Set(${(value as Set<unknown>).size})` };
  if (value instanceof RegExp || (window.RegExp && value instanceof window.RegExp)) return { subtype: 'regexp', className: 'RegExp', description: String(value) };
  if (value instanceof Date || (window.Date && value instanceof window.Date)) return { subtype: 'date', className: 'Date', description: String(value) };
  return { className, description: className };
}

/** Chromium's short description of a node, e.g. `button#pay.primary`. */
export function describeNode(node: any): string {
  if (node.nodeType === 9) return '#document';
  if (node.nodeType === 3) return '#text';
  if (node.nodeType !== 1) return String(node.nodeName ?? 'node');
  const id = node.id ? `#${node.id}` : '';
  const classes = node.classList?.length ? `.${[...node.classList].join('.')}` : '';
  return `${String(node.localName)}${id}${classes}`;
}
