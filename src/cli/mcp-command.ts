import { parseArgs } from 'node:util';
import type { AgentClient } from '../runtime/clients.js';
import { ApiError } from '../core/shared/api-error.js';
import { connect } from '../http/connect.js';
import { createRuntime } from '../index.js';
import { serveMcpStdio } from '../mcp/stdio.js';
import { FileBlobStore } from '../providers/blobs/file-blob-store.js';
import { JsonFilePersistence } from '../providers/persistence/json-file-persistence.js';
import type { Runtime } from '../runtime/create-runtime.js';

/** Help text of `agent-services mcp`. */
export const MCP_USAGE = `Usage: agent-services mcp --api-key KEY [--base-url URL]
       agent-services mcp [--data FILE] [--seed N] [--agent NAME] [--balance ASSET=AMOUNT]...

Serves the agent endpoints as MCP tools over stdin/stdout (for an MCP client to spawn), acting as
the agent that owns the API key. Nothing but the protocol is written to stdout; notes go to stderr.

  --api-key KEY          the agent's API key
  --base-url URL         a running server (agent-services serve, or any implementation of the API)
Without --base-url the world is in this process, simulated:
  --data FILE            load the state a "serve --data FILE" keeps, and save changes back to it
  --seed N               seed of a fresh world (default 0)
  --agent NAME           without --api-key: act as this agent, created here (default demo: a
                         fresh world starts with the agent "serve --demo" makes, same key)
  --balance ASSET=AMOUNT fund that agent with this much (repeatable, e.g. --balance usd=100)`;

/** Parsed `mcp` arguments. */
export interface McpArgs {
  apiKey: string | undefined;
  baseUrl: string | undefined;
  data: string | undefined;
  seed: number | string;
  agent: string;
  balances: Record<string, string>;
}

/** Parses `mcp` arguments. @throws Error with a usage message */
export function parseMcpArgs(args: string[]): McpArgs {
  const { values } = parseArgs({
    args,
    strict: true,
    options: {
      'api-key': { type: 'string' },
      'base-url': { type: 'string' },
      data: { type: 'string' },
      seed: { type: 'string' },
      agent: { type: 'string' },
      balance: { type: 'string', multiple: true },
    },
  });
  const baseUrl = values['base-url'];
  if (baseUrl !== undefined) {
    if (!/^https?:\/\//.test(baseUrl)) throw new Error(`--base-url must be an http(s) URL, got "${baseUrl}"`);
    if (values['api-key'] === undefined) throw new Error('--base-url needs --api-key (the agent to act as)');
    const local = ['data', 'seed', 'agent', 'balance'].find((name) => values[name as 'data'] !== undefined);
    if (local) throw new Error(`--${local} is for an in-process world; it cannot be used with --base-url`);
  }
  if (values['api-key'] !== undefined && (values.agent !== undefined || values.balance !== undefined)) {
    throw new Error('--agent and --balance create a new agent; give them instead of --api-key, not with it');
  }
  const balances: Record<string, string> = {};
  for (const item of values.balance ?? []) {
    const match = /^([a-z]+)=(\S+)$/.exec(item);
    if (!match) throw new Error(`--balance must be ASSET=AMOUNT (e.g. usd=100), got "${item}"`);
    balances[match[1]!] = match[2]!;
  }
  const seed = values.seed ?? '0';
  return {
    apiKey: values['api-key'],
    baseUrl,
    data: values.data,
    seed: /^-?\d+$/.test(seed) ? Number(seed) : seed,
    agent: values.agent ?? 'demo',
    balances,
  };
}

/**
 * The agent a fresh in-process world starts with, made exactly as `serve --demo` makes it, so the
 * API key `agent-services serve --demo --seed N` prints is a key of `agent-services mcp --seed N`.
 */
const DEMO_AGENT = { name: 'demo', display_name: 'Demo Agent' } as const;

/** Checks a key against the world it will be used in. @throws Error naming the problem */
async function checked(client: AgentClient, where: string): Promise<string> {
  try {
    return (await client.identity.getProfile()).handle;
  } catch (error) {
    if (error instanceof ApiError && error.code === 'unauthorized') throw new Error(`unknown API key ${where}`);
    if (error instanceof ApiError) throw new Error(`${error.code}: ${error.message}`);
    throw new Error(`cannot reach the API ${where}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** The client the tools act through: over HTTP, or in this process (creating the agent when asked). */
async function clientFor(args: McpArgs, note: (line: string) => void): Promise<{ client: AgentClient; runtime: Runtime | null }> {
  if (args.baseUrl !== undefined) {
    const client = connect({ baseUrl: args.baseUrl, apiKey: args.apiKey! });
    note(`agent-services mcp: agent ${await checked(client, `at ${args.baseUrl}`)} at ${args.baseUrl}`);
    return { client, runtime: null };
  }
  const runtime = await createRuntime({
    seed: args.seed,
    ...(args.data ? { persistence: new JsonFilePersistence(args.data), blobs: new FileBlobStore(`${args.data}.blobs`) } : {}),
  });
  try {
    const demo = args.data ? undefined : await runtime.createAgent(DEMO_AGENT);
    let key = args.apiKey;
    if (key === undefined) {
      key = args.agent === DEMO_AGENT.name && demo ? demo.api_key : (await runtime.createAgent({ name: args.agent })).api_key;
      const sim = runtime.simClient();
      for (const [asset, amount] of Object.entries(args.balances)) {
        await sim.fundWallet({ handle: args.agent, asset: asset as 'usd', amount });
      }
      note(`agent-services mcp: acting as agent ${args.agent} (API key ${key})`);
    }
    const client = runtime.agent(key);
    const where = args.data
      ? `in ${args.data}`
      : `in a fresh world (seed ${args.seed}: its demo agent's key is the one "serve --demo --seed ${args.seed}" prints; or give --data FILE, --base-url URL, or --agent NAME without --api-key)`;
    note(`agent-services mcp: in-process simulated world, agent ${await checked(client, where)}`);
    return { client, runtime };
  } catch (error) {
    await runtime.close();
    if (error instanceof ApiError) throw new Error(`${error.code}: ${error.message}`);
    throw error;
  }
}

/** Runs `agent-services mcp` (or prints its help) until the MCP client closes stdin; answers the exit code. */
export async function mcpMain(args: string[], print: (line: string) => void): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    print(MCP_USAGE);
    return 0;
  }
  await mcpCommand(args);
  return 0;
}

/** Runs `agent-services mcp` until the MCP client closes stdin. @throws Error on bad arguments or an unknown key */
export async function mcpCommand(args: string[]): Promise<void> {
  const options = parseMcpArgs(args);
  const note = (line: string) => process.stderr.write(`${line}\n`);
  const { client, runtime } = await clientFor(options, note);
  // A client that stops the server with a signal rather than by closing stdin still gets every
  // change of a --data world saved.
  const stop = () => void (runtime ? runtime.close() : Promise.resolve()).finally(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  await serveMcpStdio(client);
  await runtime?.close();
}
