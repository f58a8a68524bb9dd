/**
 * A mail hand-off refused with an SMTP reply, shaped like nodemailer's errors (`responseCode`,
 * `response`) so a sender can classify transport failures of any origin the same way: a 4xx is
 * temporary (try again later), a 5xx permanent (bounce).
 */
export class MailTransportError extends Error {
  /** The SMTP reply code, e.g. 451 or 550. */
  readonly responseCode: number;
  /** The whole reply line, e.g. `451 4.3.0 temporary failure`. */
  readonly response: string;
  /** True for a 5xx reply: retrying will not help. */
  readonly permanent: boolean;

  constructor(responseCode: number, response: string) {
    super(response);
    this.name = 'MailTransportError';
    this.responseCode = responseCode;
    this.response = response;
    this.permanent = responseCode >= 500;
  }
}
