/** Scenarios: `defineScenario` for scenario modules, `runScenario` to run one in-process. */
export { defineScenario, DEFAULT_STEP } from './define-scenario.js';
export { runScenario, type RunOptions, type ScenarioResult, type StepProgress, type BrokenInvariant, type PolicyFailure } from './run-scenario.js';
export { scenarioRandom, type ScenarioRandom } from './scenario-random.js';
export type { MetricsData, MoneySample, Series } from './run-metrics.js';
export type { CallRecord } from './traced-transport.js';
export type {
  AgentSetupContext,
  Invariant,
  OpeningMemory,
  Policy,
  PolicyContext,
  Scenario,
  ScenarioAgent,
  ScenarioAgentInfo,
  ScenarioDefinition,
  ScenarioEvent,
  WorldContext,
} from './scenario-types.js';
