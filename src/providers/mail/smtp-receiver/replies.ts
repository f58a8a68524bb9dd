import type { ReceiverOptions } from './receiver-options.js';

/** Replies that do not depend on the session; each ends with CRLF. */
export const REPLY = {
  ok: '250 2.0.0 OK\r\n',
  senderOk: '250 2.1.0 OK\r\n',
  recipientOk: '250 2.1.5 OK\r\n',
  startData: '354 End data with <CR><LF>.<CR><LF>\r\n',
  bye: '221 2.0.0 Bye\r\n',
  vrfy: '252 2.5.0 Cannot VRFY user, but will accept message and attempt delivery\r\n',
  help: '214 2.0.0 Commands: HELO EHLO MAIL RCPT DATA BDAT RSET NOOP VRFY HELP QUIT AUTH\r\n',
  authOk: '235 2.7.0 Authentication successful\r\n',
  authFailed: '535 5.7.8 authentication credentials invalid\r\n',
  authCancelled: '501 5.7.0 Authentication cancelled\r\n',
  authAgain: '503 5.5.1 Already authenticated\r\n',
  authInTransaction: '503 5.5.1 AUTH is not allowed during a mail transaction\r\n',
  authUnknown: '504 5.5.4 Unrecognized authentication type\r\n',
  badBase64: '501 5.5.2 Cannot decode the response\r\n',
  plainChallenge: '334 \r\n',
  loginUser: '334 VXNlcm5hbWU6\r\n',
  loginPass: '334 UGFzc3dvcmQ6\r\n',
  heloFirst: '503 5.5.1 Send HELO or EHLO first\r\n',
  heloSyntax: '501 5.5.4 Syntax: EHLO hostname\r\n',
  nestedMail: '503 5.5.1 A mail transaction is already open\r\n',
  needMail: '503 5.5.1 Need MAIL before RCPT\r\n',
  needRecipient: '503 5.5.1 No valid recipients\r\n',
  mixedBody: '503 5.5.1 DATA and BDAT cannot be mixed in one transaction\r\n',
  mailSyntax: '501 5.5.4 Syntax: MAIL FROM:<address> [parameters]\r\n',
  rcptSyntax: '501 5.5.4 Syntax: RCPT TO:<address> [parameters]\r\n',
  bdatSyntax: '501 5.5.4 Syntax: BDAT size [LAST]\r\n',
  badSender: '501 5.1.7 Bad sender address syntax\r\n',
  badRecipient: '501 5.1.3 Bad recipient address syntax\r\n',
  badParameter: '555 5.5.4 Unsupported parameter\r\n',
  badBodyType: '501 5.5.4 BODY must be 7BIT or 8BITMIME\r\n',
  tooManyRecipients: '452 4.5.3 Too many recipients\r\n',
  tooLong: '500 5.5.2 Line too long\r\n',
  unknown: '500 5.5.2 Command not recognized\r\n',
  unsupported: '502 5.5.1 Command not supported here\r\n',
  storeFailed: '451 4.3.0 temporary failure, try again later\r\n',
  internalError: '421 4.3.0 Internal error, closing connection\r\n',
  tlsReady: '220 2.0.0 Ready to start TLS\r\n',
  tlsActive: '503 5.5.1 TLS already active\r\n',
  tlsSyntax: '501 5.5.4 Syntax: STARTTLS\r\n',
  tlsRequired: '530 5.7.0 Must issue a STARTTLS command first\r\n',
} as const;

/** The greeting, the EHLO and HELO answers and the limit replies of one receiver, built once. */
export interface FixedReplies {
  greeting: string;
  /** The EHLO answer; it offers STARTTLS when the receiver has a certificate. */
  ehlo: string;
  /** The EHLO answer once TLS is on (no STARTTLS). */
  ehloTls: string;
  helo: string;
  tooBig: string;
  timeout: string;
  shutdown: string;
  tooManyErrors: string;
  rateLimited: string;
}

/** Builds the replies that name the receiver's domain or limits. */
export function fixedReplies(options: ReceiverOptions, auth: boolean): FixedReplies {
  const { domain, maxMessageBytes } = options;
  const extensions = ['PIPELINING', '8BITMIME', 'SMTPUTF8', 'ENHANCEDSTATUSCODES', 'CHUNKING', `SIZE ${maxMessageBytes}`, ...(auth ? ['AUTH PLAIN LOGIN'] : [])];
  const answer = (lines: string[]) => [domain, ...lines].map((line, index) => `250${index === lines.length ? ' ' : '-'}${line}\r\n`).join('');
  const ehloTls = answer(extensions);
  return {
    greeting: `220 ${domain} ESMTP agent-services\r\n`,
    ehlo: options.tls ? answer([...extensions.slice(0, 5), 'STARTTLS', ...extensions.slice(5)]) : ehloTls,
    ehloTls,
    helo: `250 ${domain}\r\n`,
    tooBig: `552 5.3.4 Message size exceeds the limit of ${maxMessageBytes} bytes\r\n`,
    timeout: `421 4.4.2 ${domain} Idle too long, closing connection\r\n`,
    shutdown: `421 4.3.2 ${domain} Service shutting down, closing connection\r\n`,
    tooManyErrors: `421 4.7.0 ${domain} Too many errors, closing connection\r\n`,
    rateLimited: `451 4.7.1 more than ${options.maxMessagesPerMinute ?? 0} messages a minute on this connection; try again later\r\n`,
  };
}
