// The units' AsyncLocalStorage is enabled only while a unit is open: on Node 20 an enabled one keeps
// promise hooks on for the whole process (every later promise pays for them).
import { AsyncLocalStorage } from 'node:async_hooks';
import { describe, expect, it } from 'vitest';
import { UnitAdmission, type AdmittedUnit } from '../../../src/providers/store/unit-admission.js';

describe('UnitAdmission', () => {
  it('disables the units storage when the last open unit ends, and a new unit enables it again', async () => {
    const units = new AsyncLocalStorage<AdmittedUnit>();
    const admission = new UnitAdmission(units);
    const first: AdmittedUnit = { open: true, outside: [] };
    const second: AdmittedUnit = { open: true, outside: [] };
    admission.enterUnit();
    admission.enterUnit();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    // Work the first unit started that goes on after every unit ended (an after-commit callback).
    const leftover = units.run(first, async () => {
      await gate;
      return units.getStore();
    });
    const seen = await units.run(second, async () => {
      await Promise.resolve();
      return admission.current();
    });
    expect(seen).toBe(second);
    first.open = false;
    admission.leaveUnit();
    // One unit is still open: the storage stays on.
    expect(await units.run(second, async () => units.getStore())).toBe(second);
    second.open = false;
    admission.leaveUnit();
    release();
    // Enabled, the storage would still answer the (closed) first unit here.
    expect(await leftover).toBeUndefined();
    expect(admission.busy).toBe(false);
    const third: AdmittedUnit = { open: true, outside: [] };
    admission.enterUnit();
    expect(await units.run(third, async () => admission.current())).toBe(third);
  });
});
