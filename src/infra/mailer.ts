import type { FastifyBaseLogger } from 'fastify';
import nodemailer from 'nodemailer';

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

/** Sends e-mail: through SMTP when configured, else into the service's log. */
export interface Mailer {
  send(mail: Mail): Promise<void>;
  close(): Promise<void>;
}

/** SMTP through nodemailer (`SMTP_URL`, e.g. `smtp://user:pass@mail.example.com:587`). */
export class SmtpMailer implements Mailer {
  private readonly transport;

  constructor(
    url: string,
    private readonly from: string,
  ) {
    // A mail server that does not answer must not hold a message for long.
    const options = new URL(url);
    options.searchParams.set('connectionTimeout', '10000');
    options.searchParams.set('greetingTimeout', '10000');
    options.searchParams.set('socketTimeout', '30000');
    this.transport = nodemailer.createTransport(options.toString());
  }

  async send(mail: Mail): Promise<void> {
    await this.transport.sendMail({ from: this.from, to: mail.to, subject: mail.subject, text: mail.text });
  }

  async close(): Promise<void> {
    this.transport.close();
  }
}

/**
 * With no SMTP configured, each message (its link included) goes to the log, so that a
 * single-machine install still works: the administrator reads the link there.
 */
export class LogMailer implements Mailer {
  constructor(private readonly log: FastifyBaseLogger) {}

  async send(mail: Mail): Promise<void> {
    this.log.info({ mail }, `E-mail to ${mail.to} (no SMTP_URL configured, so it is written here): ${mail.subject}`);
  }

  async close(): Promise<void> {}
}

/**
 * Mail that a request sends without waiting for it: a slow or broken mail server never
 * fails or holds the request (the person can ask again); failures are logged. `close`
 * waits for what is still being sent.
 */
export class Outbox {
  private readonly sending = new Set<Promise<void>>();

  constructor(
    private readonly mailer: Mailer,
    private readonly log: FastifyBaseLogger,
  ) {}

  post(mail: Mail): void {
    const sent = this.mailer
      .send(mail)
      .catch((error: unknown) =>
        this.log.error({ err: error, to: mail.to, subject: mail.subject }, 'e-mail could not be sent'),
      )
      .finally(() => this.sending.delete(sent));
    this.sending.add(sent);
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.sending]);
    await this.mailer.close();
  }
}
