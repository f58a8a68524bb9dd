import { parseDuration } from '../core/shared/duration.js';
import type { Scenario, ScenarioDefinition } from './scenario-types.js';

/** Default service time between two steps. */
export const DEFAULT_STEP = '10m';

/**
 * Checks a scenario and marks it as one: a scenario module's `export default defineScenario({...})`.
 * @throws TypeError when a field has the wrong type, RangeError for a bad count or duration
 */
export function defineScenario<State, World = Record<string, unknown>>(definition: ScenarioDefinition<State, World>): Scenario<State, World> {
  checkScenario(definition);
  return { ...definition, kind: 'agent-services/scenario' };
}

/**
 * Throws when `value` is not a usable scenario definition (also used on loaded modules, which
 * may have been built by another copy of this package).
 * @throws TypeError when a field has the wrong type, RangeError for a bad count or duration
 */
export function checkScenario(value: unknown): asserts value is ScenarioDefinition {
  if (typeof value !== 'object' || value === null) throw new TypeError('a scenario must be an object built with defineScenario({...})');
  const scenario = value as Partial<ScenarioDefinition>;
  if (typeof scenario.name !== 'string' || scenario.name.trim() === '') throw new TypeError('scenario.name must be a non-empty string');
  if (!Number.isInteger(scenario.agents) || scenario.agents! < 1) throw new RangeError(`scenario.agents must be an integer >= 1, got ${String(scenario.agents)}`);
  if (typeof scenario.duration !== 'string') throw new TypeError('scenario.duration must be a duration such as "24h"');
  parseDuration(scenario.duration);
  if (scenario.step !== undefined) parseDuration(scenario.step);
  if (scenario.seed !== undefined && !Number.isSafeInteger(scenario.seed)) throw new RangeError(`scenario.seed must be an integer, got ${String(scenario.seed)}`);
  if (typeof scenario.agent !== 'function') throw new TypeError('scenario.agent must be a function (index, context) => agent');
  const world = scenario.world;
  if (world !== undefined) {
    for (const hook of ['state', 'setup', 'step'] as const) {
      if (world[hook] !== undefined && typeof world[hook] !== 'function') throw new TypeError(`scenario.world.${hook} must be a function`);
    }
  }
  for (const [name, check] of Object.entries(scenario.invariants ?? {})) {
    if (typeof check !== 'function') throw new TypeError(`scenario.invariants["${name}"] must be a function`);
  }
}
