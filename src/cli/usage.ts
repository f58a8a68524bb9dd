// Help texts, in a module of their own with no imports: `agent-services --help` loads only this.

/** Help text of `agent-services`. */
export const USAGE = `Usage: agent-services <command>

Commands:
  serve        run the HTTP server (agent-services serve --help)
  migrate      create or upgrade a PostgreSQL world's schema (agent-services migrate --help)
  config       print the config file's JSON Schema, or check a configuration (agent-services config --help)
  mcp          serve the API's tools over MCP on stdio (agent-services mcp --help)
  scenario     run a scenario file on a simulated world (agent-services scenario --help)
  conformance  check any server against the API contract (agent-services conformance --help)
  dns-records  print the MX, SPF, DKIM and DMARC records a mail domain needs (dns-records --help)`;

/** Help text of \`agent-services dns-records\`. */
export const DNS_RECORDS_USAGE = `Usage: agent-services dns-records --service-domain D [options]

Prints, as zone-file lines, the records to publish so that mail of the service domain is
delivered and trusted: MX, SPF, DKIM (the key's public half) and DMARC.

  --service-domain D   the service domain, e.g. agents.example.com (required)
  --dkim-key FILE      the PEM private key serve signs with (--dkim-key); without it the DKIM
                       record is left out
  --dkim-selector S    its selector (default agents)
  --smtp-host H        the host name of the SMTP listener, the MX (default mx.D)
  --smtp-relay URL     the relay serve sends through: its host is added to the SPF record`;

/** Help text of `agent-services migrate`. */
export const MIGRATE_USAGE = `Usage: agent-services migrate --database URL

Creates the schema of a PostgreSQL world, or upgrades it to this version's, and exits
(serve does the same at start). URL defaults to $DATABASE_URL. Exit 1 when the database
cannot be reached or holds a newer schema version than this agent-services knows.`;

/** Help text of `agent-services config`. */
export const CONFIG_USAGE = `Usage: agent-services config schema
       agent-services config check [--config FILE] [serve options]

  schema   print the JSON Schema of serve's config file
  check    print the configuration serve would run with, secrets masked, and exit 0;
           or name each bad setting on stderr and exit 1

Every serve option is a config file key in snake_case (--service-domain is service_domain) and an
AGENT_SERVICES_<KEY> variable. A flag beats the variable, which beats the file. A secret (admin_token,
smtp_auth, smtp_relay, webhook, twilio_auth_token, openai_embeddings_key, card_vault_key) may be
given as <key>_file in the file or AGENT_SERVICES_<KEY>_FILE: a file holding it (a trailing newline
is dropped).
See docs/operating.md.`;

/** Help text of `agent-services serve`. */
export const SERVE_USAGE = `Usage: agent-services serve [--config FILE] [options]

  --config FILE        read settings from this JSON file (agent-services config --help);
                       also AGENT_SERVICES_CONFIG. Every option below is a key of the file
  --host HOST          address to listen on (default: $HOST, else 127.0.0.1)
  --port N             port to listen on; 0 picks a free one (default: $PORT, else 8787)
  --seed N             seed of the simulated world (default 0)
  --data FILE          keep the world in the SQLite database FILE (e.g. world.db): every
                       answered change is on disk; a restart continues it. A JSON world
                       of an older version (world.json) is imported once into world.db
  --database URL       keep the world in PostgreSQL (postgres://USER:PASS@HOST:PORT/DB;
                       default $DATABASE_URL): any number of processes may serve it at
                       once; the schema is created at first start (docs/store.md)
  --blobs DIR          with --database: keep file bytes in DIR, a directory every process
                       shares, instead of in the database
  --advertise-url URL  with --database: the URL other processes and browser clients reach
                       this one at (default: its listen URL); the ws_endpoint of the browser
                       sessions it runs, and where the others forward calls on them
  --event-retention D  remove events (and settled webhook deliveries) older than D of
                       service time (30d, 12h, 90m, 3600s); by default every event is kept
  --request-timeout D  real-time deadline of each request's outside calls (carriers,
                       runs, fetches; 30s, 2m, 500ms): past it the call is cut off and the
                       request answers 500 internal_error saying so; by default none
  --admin-token T      require "Authorization: Bearer T" on /admin/v1 (the operator's API),
                       /_sim, /metrics and the dashboard (/_dashboard?token=T once sets a cookie)
  --service-domain D   domain of handles and mailboxes (default agents.test)
  --live               real clock and OS randomness instead of the simulation
  --issuer-key FILE    sign credentials with this private Ed25519 JWK (live mode otherwise
                       makes a new key each start, so old credentials stop verifying)
  --chain NETWORK=MODE run ethereum, base or solana on sim (default: the simulated chain),
                       local (a real chain inside the process: Hardhat EDR for ethereum and
                       base, LiteSVM for solana) or an http(s) JSON-RPC URL (repeatable;
                       docs/chains.md)
  --usdc NETWORK=ADDR  the usdc ERC-20 contract or SPL mint of an RPC network (local deploys
                       its own)
  --confirmations NETWORK=N
                       confirmation depth (default ethereum 12, base 10, solana 32; local 1)
  --custody-mnemonic-file FILE
                       the BIP-39 mnemonic every custody address derives from (index 0 the
                       hot wallet, agents from 1); required for local and RPC chains;
                       simulated chains derive one from the seed (docs/chains.md)
  --smtp-port N        also accept mail for the agents over SMTP on this port (0 picks one)
  --smtp-host HOST     address of the SMTP listener (default: --host)
  --smtp-auth U:P      offer SMTP AUTH for this one account; only an authenticated session
                       may use a MAIL FROM of the service domain (default: no AUTH offered)
  --smtp-rate N        at most N messages a minute on one SMTP connection (default: no limit)
  --smtp-relay URL     send mail for outside addresses through this relay,
                       smtp://[user:pass@]host[:port] or smtps://... (default: kept in the outbox)
  --dkim-key FILE      sign every relayed message with DKIM for the service domain with this
                       PEM private key (RSA 2048 bits or more, or Ed25519)
  --dkim-selector S    the DKIM selector, s= (default agents: agents._domainkey.<domain>)
  --smtp-tls-cert FILE PEM certificate (chain) of the SMTP listener: EHLO offers STARTTLS
  --smtp-tls-key FILE  its PEM private key
  --smtp-require-tls   answer MAIL and AUTH before STARTTLS with 530 5.7.0
  --smtp-enforce-dmarc refuse (550 5.7.1) a message that fails DMARC when its domain publishes
                       p=reject; by default it is kept and its verdict says dmarc=fail
  --dns-server H:P     check SPF, DKIM and DMARC with this DNS server (default: the system's)
  --webhook URL=SECRET deliver every agent's webhook events to URL, signed with SECRET
                       (repeatable; docs/webhooks.md)
  --sandbox KIND       where compute runs execute: wasm (default, in-process WebAssembly) or
                       bubblewrap (real node, python3 and bash under bwrap; needs bwrap)
  --browser KIND       browser sessions run on auto (default: chromium when found, else
                       simulated), chromium or simulated
  --chromium PATH      the Chromium binary (default: /usr/bin/chromium or chromium on PATH)
  --embedder NAME      the built-in memory embedder: sentence-encoder (default; the Universal
                       Sentence Encoder lite and lexical features, ~10 ms a text), word-vectors
                       (GloVe and lexical features, ~0.05 ms a text, weaker on paraphrases)
                       or lexical (shared words only)
  --embedding-model DIR
                       embed memories with the sentence-transformers ONNX model in DIR
                       (e.g. all-MiniLM-L6-v2; needs @huggingface/transformers; nothing is
                       downloaded) instead of the built-in embedder
  --embedding-dtype T  weights of --embedding-model: fp32 (default) or q8
  --log-level L        request log level: fatal, error, warn, info (default; one JSON line
                       per request on stdout), debug, trace or silent
  --shutdown-timeout D on SIGTERM or SIGINT, how long requests in flight may take to finish
                       before they are cut (default 30s)
  --base-url URL       the service's public URL, {base_url} (default: the listen address)
  --twilio-account-sid SID, --twilio-auth-token T, --twilio-callback-url URL
                       carry SMS and calls through this Twilio account; callbacks come to
                       URL/_twilio (default URL: --base-url)
  --twilio-numbers N   a number of the account new agents get (repeatable; in order; creation
                       answers 409 conflict once every one is taken)
  --openai-embeddings-url URL, --openai-embeddings-model M, --openai-embeddings-key K
                       embed memories with an OpenAI-compatible endpoint (OpenAI, Ollama, vLLM)
  --card-vault-key K   AES-256 key (64 hex digits or base64 of 32 bytes) of the vault that keeps
                       a new card's number, CVV and billing address until the dashboard shows
                       them once (simulation: derived from the seed; live without it: a key
                       per process)
  --demo               create a demo agent and print its API key and a curl line`;

/** Help text of `agent-services scenario`. */
export const SCENARIO_USAGE = `Usage: agent-services scenario run FILE [options]

Runs a scenario module (export default defineScenario({...}); .js, .mjs, or .ts with tsx
installed) on a fresh simulated world: step by step the clock moves, every agent's policy
runs and every invariant is checked. Prints a summary and the SHA-256 of the trace; the same
file and seed give the same trace byte for byte. Exit code 1 when an invariant broke (with
the seed, the step and the command that replays it), 2 on a usage error.

  --seed N           seed of the world and of every random stream (default: the scenario's, else 0)
  --agents N         number of agents (default: the scenario's)
  --duration D       service time to cover: 24h, 90m, 3600s, 2d (default: the scenario's)
  --report FILE      write an HTML report (self-contained, opens offline) with plots over
                     service time: money per asset, messages and SMS, events, failures and faults
  --trace FILE       write the JSONL trace of every call and event (it is hashed either way)`;

/** Help text of `agent-services conformance`. */
export const CONFORMANCE_USAGE = `Usage: agent-services conformance --base-url URL [options]

Runs the conformance suite (docs/conformance.md) against a server that speaks /v1 and the /_sim
control plane; exits 1 when a check fails. Checks that need a control endpoint the server lacks
(such as /_sim/faults) are reported as skipped with the reason.

  --base-url URL       the server to check, e.g. http://127.0.0.1:8787 (required)
  --admin-token T      send "Authorization: Bearer T" on /_sim (a server started with --admin-token)
  --only AREA,...      only these areas: service, identity, wallet, email, memory, phone, compute,
                       browser, webhooks
  --seed N             seed of the property checks (default: random, printed); a failure prints
                       the seed, the shrunk calls and the command that replays it
  --runs N             fast-check runs per property (default 20)
  --reporter R         spec (default on a terminal: checks by area and a summary table), tap
                       (default otherwise), junit (XML for CI systems) or json
                       ({summary: {passed, failed, skipped}, checks: [{area, name, status,
                       message?, seed?}]})`;
