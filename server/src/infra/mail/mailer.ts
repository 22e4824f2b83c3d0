import nodemailer from 'nodemailer';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** Where mail goes: SMTP when SMTP_URL is set, otherwise the log (development). */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
  close(): Promise<void>;
}

export function createSmtpMailer(url: string, from: string): Mailer {
  const transport = nodemailer.createTransport(url, { from });
  return {
    async send(message) {
      await transport.sendMail({ from, ...message });
    },
    async close() {
      transport.close();
    },
  };
}

/** Without SMTP the message is logged, so a developer can follow the link from the console. */
export function createLogMailer(log: (entry: { to: string; subject: string; text: string }, msg: string) => void): Mailer {
  return {
    async send({ to, subject, text }) {
      log({ to, subject, text }, 'mail (SMTP_URL not set, so written to the log)');
    },
    async close() {},
  };
}
