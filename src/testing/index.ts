/**
 * `agent-services/testing`: simulated worlds for tests on any runner (vitest, jest, node:test).
 * `createTestWorld` makes one with agents ready, `loadFixture` hands out fresh copies of a world
 * built once, and `world.waitFor` moves the clock until an event happens.
 */
export { createTestWorld, type TestWorld, type TestWorldOptions, type AgentSpec, type CreatedAccount } from './test-world.js';
export { loadFixture } from './fixtures.js';
export { describeEvent, type WaitForOptions } from './wait-for.js';
export type { EventRecord, EventType, LoggedEventType } from './events.js';
