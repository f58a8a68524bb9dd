/**
 * `agent-services/conformance`: the conformance suite of the Agent Services API, written once
 * against `AgentClient` and a small control plane. Run it against any server (`httpTarget`,
 * `runConformance`, or the `agent-services conformance` command) or register it on a test
 * runner (`registerConformance({ describe, it })`).
 */
export { AREAS, type Area, type Need, type CheckDefinition, type CheckContext, type CheckResult } from './types.js';
export { httpTarget, controlPlaneOf, faultsOver, type ConformanceTarget, type ControlPlane, type FaultControl, type FaultRule, type HttpTargetOptions, type RawFetch } from './target.js';
export { runConformance, runCheck, prepareRun, selectChecks, DEFAULT_RUNS, type RunOptions, type RunReport, type RunState } from './runner.js';
export { registerConformance, type TestRunner, type RegisterOptions } from './register.js';
export { ALL_CHECKS } from './suites/index.js';
export { CheckFailure, CheckSkipped, check, checkEqual, expectError } from './assert.js';
export { WireViolation, checkedHttpTransport } from './wire-check.js';
export type { AgentSetup, ConformanceAgent } from './agents.js';
export { jsonReport } from './reporters/json.js';
export { tapReport } from './reporters/tap.js';
export { junitReport } from './reporters/junit.js';
export { specReport } from './reporters/spec.js';
