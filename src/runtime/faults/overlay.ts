/**
 * `inner` with some members replaced: a Proxy, so everything else (other methods, optional
 * members, getters, `instanceof`) still sees the original.
 */
export function overlay<T extends object>(inner: T, overrides: Partial<T>): T {
  const bound = new Map<PropertyKey, unknown>();
  return new Proxy(inner, {
    get(target, key) {
      if (Object.hasOwn(overrides, key)) return (overrides as Record<PropertyKey, unknown>)[key];
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== 'function') return value;
      let method = bound.get(key);
      if (method === undefined) bound.set(key, (method = (value as (...args: unknown[]) => unknown).bind(target)));
      return method;
    },
  });
}
