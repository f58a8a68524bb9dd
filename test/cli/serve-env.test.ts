import { describe, expect, it } from 'vitest';
import { parseServeArgs } from '../../src/cli/serve-command.js';
import { SERVE_USAGE } from '../../src/cli/usage.js';

describe('agent-services serve: PORT and HOST', () => {
  it('listens on PORT and HOST when --port and --host are not given', () => {
    const options = parseServeArgs([], { PORT: '9123', HOST: '0.0.0.0' });
    expect({ host: options.host, port: options.port }).toEqual({ host: '0.0.0.0', port: 9123 });
  });

  it('lets --port and --host win over PORT and HOST', () => {
    const options = parseServeArgs(['--port', '7001', '--host', '127.0.0.2'], { PORT: '9123', HOST: '0.0.0.0' });
    expect({ host: options.host, port: options.port }).toEqual({ host: '127.0.0.2', port: 7001 });
  });

  it('keeps 127.0.0.1:8787 when neither is set, or they are empty', () => {
    for (const env of [{}, { PORT: '', HOST: '' }]) {
      const options = parseServeArgs([], env);
      expect({ host: options.host, port: options.port }).toEqual({ host: '127.0.0.1', port: 8787 });
    }
  });

  it('the SMTP listener follows HOST like it follows --host', () => {
    expect(parseServeArgs(['--smtp-port', '0'], { HOST: '0.0.0.0' }).smtp).toEqual({ host: '0.0.0.0', port: 0 });
  });

  it('refuses a PORT that is not a port, naming the variable', () => {
    expect(() => parseServeArgs([], { PORT: 'http' })).toThrow('PORT must be an integer 0..65535, got "http"');
    expect(() => parseServeArgs([], { PORT: '70000' })).toThrow('PORT must be an integer 0..65535, got "70000"');
    expect(() => parseServeArgs(['--port', 'x'], { PORT: '1' })).toThrow('--port must be an integer 0..65535, got "x"');
  });

  it('says so in its help text', () => {
    expect(SERVE_USAGE).toContain('$PORT');
    expect(SERVE_USAGE).toContain('$HOST');
  });
});
