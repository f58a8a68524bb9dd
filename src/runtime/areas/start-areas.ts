import type { BoundRoute } from '../../core/api/route.js';
import type { AreaContext, AreaModule } from './area-module.js';

/**
 * Starts every area (hooks, job handlers) and answers their bound routes, checking that each area
 * binds exactly the routes it declares: the clients, MCP tools and OpenAPI come from the
 * declarations, so a route bound but not declared (or declared but not bound) would be unreachable
 * from one side.
 * @throws Error naming the area and the route ids that differ
 */
export function startAreas(areas: readonly AreaModule[], context: AreaContext): BoundRoute[] {
  return areas.flatMap((area) => {
    const bound = area.start(context);
    const declared = new Set([...Object.values(area.routes ?? {}), ...Object.values(area.simRoutes ?? {})].map((route) => route.id));
    const given = new Set(bound.map((route) => route.definition.id));
    const unbound = [...declared].filter((id) => !given.has(id));
    const undeclared = [...given].filter((id) => !declared.has(id));
    if (unbound.length > 0 || undeclared.length > 0) {
      const parts = [unbound.length > 0 ? `declared but not bound: ${unbound.join(', ')}` : '', undeclared.length > 0 ? `bound but not declared: ${undeclared.join(', ')}` : ''];
      throw new Error(`area ${area.name}: ${parts.filter(Boolean).join('; ')}`);
    }
    return bound;
  });
}
