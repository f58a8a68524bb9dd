import { BUBBLEWRAP } from './compute-sandboxes.js';
import { computeRunSuite } from './compute-run-suite.js';

// The same behaviour and isolation tests as the WebAssembly sandbox, against real processes.
computeRunSuite(BUBBLEWRAP);

import { describe, expect, it } from 'vitest';
import { createRuntime } from '../../src/index.js';

describe.skipIf(BUBBLEWRAP.skip)('compute.sandbox "bubblewrap" as a runtime option', () => {
  it('runs code as real processes under bubblewrap', async () => {
    const runtime = await createRuntime({ compute: { sandbox: 'bubblewrap', poolSize: 1 } });
    try {
      const agent = await runtime.createAgent({ name: 'realproc' });
      const result = await runtime.agent(agent.api_key).compute.run({ runtime: 'bash', code: 'echo $BASH_VERSION | cut -d. -f1' });
      // just-bash reports no major version; a real bash does.
      expect(result.stdout).toMatch(/^\d+\n$/);
    } finally {
      await runtime.close();
    }
  });
});
