import nodemailer from 'nodemailer';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** Where mail goes: SMTP when SMTP_URL is set, otherwise the log (development only). */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
  close(): Promise<void>;
}

export type MailLog = (entry: { to: string; subject: string; text: string }, msg: string) => void;

/**
 * SMTP when configured; the log mailer only outside production. config.ts already refuses to
 * start production without SMTP_URL; this refuses too, so no other wiring can bring the log
 * mailer (and the reset links it writes) to a production log.
 */
export function createMailer(options: { smtpUrl?: string; mailFrom: string; production: boolean }, log: MailLog): Mailer {
  if (options.smtpUrl) return skippingReserved(createSmtpMailer(options.smtpUrl, options.mailFrom));
  if (options.production) throw new Error('SMTP_URL is required when NODE_ENV=production');
  return skippingReserved(createLogMailer(log));
}

/**
 * An address under `.invalid` (RFC 2606) routes nowhere: it is what an account holds after giving
 * up an unproven address (identity/users/unproven-address.ts). Nothing is sent to it.
 */
function skippingReserved(mailer: Mailer): Mailer {
  return { send: async (message) => (/\.invalid$/i.test(message.to) ? undefined : mailer.send(message)), close: () => mailer.close() };
}

/**
 * A failed delivery as it reaches the log: nodemailer's code, the SMTP command and the server's
 * reply, nothing else (not the message, whose links are live tokens, nor the recipient list).
 */
export class MailDeliveryError extends Error {
  readonly code: string | undefined;
  readonly command: string | undefined;
  readonly responseCode: number | undefined;
  readonly response: string | undefined;
  constructor(cause: unknown) {
    const { code, command, responseCode, response } = (cause ?? {}) as Record<string, unknown>;
    super(`mail not sent: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'MailDeliveryError';
    this.code = typeof code === 'string' ? code : undefined;
    this.command = typeof command === 'string' ? command : undefined;
    this.responseCode = typeof responseCode === 'number' ? responseCode : undefined;
    this.response = typeof response === 'string' ? response : undefined;
  }
}

export function createSmtpMailer(url: string, from: string): Mailer {
  const transport = nodemailer.createTransport(url, { from });
  return {
    async send(message) {
      try {
        await transport.sendMail({ from, ...message });
      } catch (error) {
        throw new MailDeliveryError(error);
      }
    },
    async close() {
      transport.close();
    },
  };
}

/** Development without SMTP: the message is logged, so a developer can follow the link from the console. */
export function createLogMailer(log: MailLog): Mailer {
  return {
    async send({ to, subject, text }) {
      log({ to, subject, text }, 'mail (SMTP_URL not set, so written to the log)');
    },
    async close() {},
  };
}
