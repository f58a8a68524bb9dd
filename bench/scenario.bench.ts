/**
 * `npm run bench -- scenario [--duration 6h] [--sizes 100,1000,10000] [--seed N]`: runs the
 * marketplace scenario at each agent count and prints agent-steps per second over the steps
 * (agent creation and the first step excluded), how the cost of one agent step grows from one
 * size to the next (1.00 = linear in the agents), and, as the floor, bare in-process
 * `email.list` calls per second in the same process: the least an agent step can cost, since
 * every trader looks at its inbox once per step. A small run warms the JIT first.
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createRuntime, runScenario } from '../src/index.js';
import marketplace from '../examples/scenarios/marketplace.js';

interface Measured {
  agents: number;
  agentSteps: number;
  seconds: number;
  rate: number;
  calls: number;
  totalSeconds: number;
}

async function measure(agents: number, duration: string, seed: number): Promise<Measured> {
  const started = performance.now();
  let afterFirst: { at: number; agentSteps: number } | undefined;
  const result = await runScenario(marketplace, {
    seed,
    agents,
    duration,
    onStep: (progress) => {
      if (progress.step === 1) afterFirst = { at: performance.now(), agentSteps: progress.agentSteps };
    },
  });
  const ended = performance.now();
  const from = afterFirst ?? { at: started, agentSteps: 0 };
  const seconds = (ended - from.at) / 1000;
  const agentSteps = result.agentSteps - from.agentSteps;
  return { agents, agentSteps, seconds, rate: agentSteps / seconds, calls: result.calls, totalSeconds: (ended - started) / 1000 };
}

/** Bare `email.list` calls per second through the in-process client, over `agents` agents with a few messages each. */
async function floor(agents: number, calls: number): Promise<number> {
  const runtime = await createRuntime({ seed: 1 });
  const sim = runtime.simClient();
  const clients = [];
  for (let i = 0; i < agents; i++) clients.push(runtime.agent((await sim.createAgent({ name: `floor-${i}` })).api_key));
  for (let i = 0; i < agents; i++) await clients[i]!.email.send({ to: [`floor-${(i + 1) % agents}@agents.test`], subject: 'hello', text: 'OFFER 1.00 widget' });
  const started = performance.now();
  for (let i = 0; i < calls; i++) await clients[i % agents]!.email.list({ limit: 100 });
  const rate = calls / ((performance.now() - started) / 1000);
  await runtime.close();
  return rate;
}

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { duration: { type: 'string', default: '6h' }, sizes: { type: 'string', default: '100,1000,10000' }, seed: { type: 'string', default: '1' } } });
  const sizes = values.sizes.split(',').map(Number);
  const seed = Number(values.seed);
  // Warm the JIT on a small run first, so the smallest size is not measured cold.
  await runScenario(marketplace, { seed, agents: 50, duration: '6h' });
  const floorRate = await floor(1000, 20_000);
  console.log(`floor: ${Math.round(floorRate)} bare email.list calls/s (in-process client, 1,000 agents)`);
  const measured: Measured[] = [];
  for (const agents of sizes) {
    const m = await measure(agents, values.duration, seed);
    measured.push(m);
    console.log(
      `${String(agents).padStart(6)} agents, ${values.duration}: ${Math.round(m.rate)} agent-steps/s over ${m.agentSteps} agent steps (${m.calls} calls, ${m.totalSeconds.toFixed(1)} s in all); ` +
        `an agent step costs ${(floorRate / m.rate).toFixed(2)} bare list calls`,
    );
  }
  for (let i = 1; i < measured.length; i++) {
    const [before, after] = [measured[i - 1]!, measured[i]!];
    console.log(`cost per agent step, ${before.agents} → ${after.agents} agents: x${(before.rate / after.rate).toFixed(2)} (1.00 = linear growth of the run with the agents)`);
  }
}
