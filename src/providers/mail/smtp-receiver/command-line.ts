/** One SMTP command line taken apart: the verb in capitals and what follows it. */
export interface CommandLine {
  verb: string;
  /** The rest of the line after the first space ('' when there is none). */
  argument: string;
}

/** Splits a command line (without its line end) into verb and argument. */
export function parseCommandLine(line: string): CommandLine {
  const space = line.indexOf(' ');
  return space < 0 ? { verb: line.toUpperCase(), argument: '' } : { verb: line.slice(0, space).toUpperCase(), argument: line.slice(space + 1).trim() };
}

/** The address and parameters of `MAIL FROM:` or `RCPT TO:`. */
export interface MailPath {
  /** The address between the angle brackets ('' for the null sender `<>`). */
  address: string;
  /** ESMTP parameters, keys in capitals, `true` for a parameter without a value. */
  params: Map<string, string | true>;
}

/**
 * Parses the argument of `MAIL` (`keyword` FROM) or `RCPT` (`keyword` TO): `FROM:<address>`
 * followed by `KEY=value` parameters, a space after the colon tolerated, a source route
 * (`<@relay:user@host>`) dropped. Answers null when the syntax is wrong.
 */
export function parseMailPath(argument: string, keyword: 'FROM' | 'TO'): MailPath | null {
  const prefix = `${keyword}:`;
  if (argument.slice(0, prefix.length).toUpperCase() !== prefix) return null;
  const rest = argument.slice(prefix.length).trimStart();
  const close = rest.indexOf('>');
  if (rest[0] !== '<' || close < 0) return null;
  let address = rest.slice(1, close);
  if (address.startsWith('@')) address = address.slice(address.indexOf(':') + 1);
  if (/[\s<>]/.test(address)) return null;
  const params = new Map<string, string | true>();
  for (const token of rest.slice(close + 1).split(' ')) {
    if (token === '') continue;
    const equals = token.indexOf('=');
    if (equals === 0) return null;
    if (equals < 0) params.set(token.toUpperCase(), true);
    else params.set(token.slice(0, equals).toUpperCase(), token.slice(equals + 1));
  }
  return { address, params };
}
