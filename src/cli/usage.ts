// Help texts, in a module of their own with no imports: `agent-services --help` loads only this.

/** Help text of `agent-services`. */
export const USAGE = `Usage: agent-services <command>

Commands:
  serve    run the HTTP server (agent-services serve --help)
  mcp      serve the API's tools over MCP on stdio (agent-services mcp --help)`;

/** Help text of `agent-services serve`. */
export const SERVE_USAGE = `Usage: agent-services serve [options]

  --host HOST          address to listen on (default 127.0.0.1)
  --port N             port to listen on; 0 picks a free one (default 8787)
  --seed N             seed of the simulated world (default 0)
  --data FILE          keep the world in the SQLite database FILE (e.g. world.db): every
                       answered change is on disk; a restart continues it. A JSON world
                       of an older version (world.json) is imported once into world.db
  --event-retention D  remove events older than D of service time (30d, 12h, 90m, 3600s);
                       by default every event is kept
  --request-timeout D  real-time deadline of each request's outside calls (carriers,
                       runs, fetches; 30s, 2m, 500ms): past it the call is cut off and the
                       request answers 500 internal_error saying so; by default none
  --admin-token T      require "Authorization: Bearer T" on /_sim
  --service-domain D   domain of handles and mailboxes (default agents.test)
  --live               real clock and OS randomness instead of the simulation
  --issuer-key FILE    sign credentials with this private Ed25519 JWK (live mode otherwise
                       makes a new key each start, so old credentials stop verifying)
  --smtp-port N        also accept mail for the agents over SMTP on this port (0 picks one)
  --smtp-host HOST     address of the SMTP listener (default: --host)
  --smtp-relay URL     send mail for outside addresses through this relay,
                       smtp://[user:pass@]host[:port] or smtps://... (default: kept in the outbox)
  --webhook URL=SECRET deliver every agent's webhook events to URL, signed with SECRET
                       (repeatable; docs/webhooks.md)
  --sandbox KIND       where compute runs execute: wasm (default, in-process WebAssembly) or
                       bubblewrap (real node, python3 and bash under bwrap; needs bwrap)
  --browser KIND       browser sessions run on auto (default: chromium when found, else
                       simulated), chromium or simulated
  --chromium PATH      the Chromium binary (default: /usr/bin/chromium or chromium on PATH)
  --demo               create a demo agent and print its API key and a curl line`;
