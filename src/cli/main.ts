#!/usr/bin/env node
import { CONFORMANCE_USAGE, DNS_RECORDS_USAGE, SERVE_USAGE, USAGE } from './usage.js';

/**
 * Entry point of the `agent-services` command. Only the help texts are loaded up front; the
 * runtime, the HTTP server and their libraries are imported when `serve` runs, so `--help`
 * answers at once.
 */
async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const print = (line: string) => process.stdout.write(`${line}\n`);
  if (command === 'mcp') return (await import('./mcp-command.js')).mcpMain(rest, print);
  if (command === 'config') return (await import('./config-command.js')).configMain(rest, print, (line) => process.stderr.write(`${line}\n`));
  if (command === 'scenario') return (await import('./scenario-command.js')).scenarioMain(rest, print);
  if (command === 'conformance') {
    if (rest.includes('--help') || rest.includes('-h')) {
      print(CONFORMANCE_USAGE);
      return 0;
    }
    const { conformanceCommand } = await import('./conformance-command.js');
    return conformanceCommand(rest, { write: (text) => process.stdout.write(text), isTerminal: process.stdout.isTTY === true });
  }
  if (command === 'migrate') return (await import('./migrate-command.js')).migrateCommand(rest, print);
  if (command === 'dns-records') {
    if (rest.includes('--help') || rest.includes('-h')) {
      print(DNS_RECORDS_USAGE);
      return 0;
    }
    (await import('./dns-records-command.js')).dnsRecordsCommand(rest, print);
    return 0;
  }
  if (command === 'serve') {
    if (rest.includes('--help') || rest.includes('-h')) {
      print(SERVE_USAGE);
      return 0;
    }
    const { serveCommand } = await import('./serve-command.js');
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
