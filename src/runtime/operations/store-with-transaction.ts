import type { Store } from '../../core/ports/store.js';

/**
 * Every member of the store port, each marked with how the runtime's store follows it: the object
 * literal fails to compile when the port gains or loses one, so none is hidden.
 */
const MEMBERS = {
  view: 'read',
  transaction: 'replaced',
  unit: 'call',
  outside: 'call',
  exclusive: 'call',
  onCommit: 'call',
  export: 'call',
  import: 'call',
  runtimeState: 'read',
  shared: 'read',
  close: 'call',
} as const satisfies Record<keyof Required<Store>, 'read' | 'call' | 'replaced'>;

/**
 * `inner` with its `transaction` replaced (the runtime times and faults every transaction), as a
 * plain object that follows `inner` for every other member of the port: a property is read from
 * `inner` when it is read, a method calls `inner`'s, and an optional member `inner` lacks is absent
 * here too. Not a Proxy: services read `store.view` and call `store.transaction` several times a
 * request, and a Proxy trap costs more than what it forwards.
 */
export function storeWithTransaction(inner: Store, transaction: Store['transaction']): Store {
  const store: Record<string, unknown> = { transaction };
  for (const [name, how] of Object.entries(MEMBERS)) {
    const member = name as keyof Store;
    if (how === 'replaced' || inner[member] === undefined) continue;
    if (how === 'read') Object.defineProperty(store, name, { enumerable: true, get: () => inner[member] });
    else {
      const method = inner[member] as (...args: unknown[]) => unknown;
      store[name] = (...args: unknown[]) => method.apply(inner, args);
    }
  }
  return store as unknown as Store;
}
