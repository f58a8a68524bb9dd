#!/usr/bin/env node
import { SERVE_USAGE, serveCommand } from './serve-command.js';

const USAGE = `Usage: agent-services <command>

Commands:
  serve    run the HTTP server (agent-services serve --help)`;

/** Entry point of the `agent-services` command. */
async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const print = (line: string) => process.stdout.write(`${line}\n`);
  if (command === 'mcp') return (await import('./mcp-command.js')).mcpMain(rest, print);
  if (command === 'serve') {
    if (rest.includes('--help') || rest.includes('-h')) {
      print(SERVE_USAGE);
      return 0;
    }
    await serveCommand(rest, print);
    return -1;
  }
  print(USAGE);
  return command === undefined || command === '--help' || command === '-h' ? 0 : 2;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`agent-services: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
