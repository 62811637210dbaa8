import type { Mail, Mailer } from '../../src/infra/mailer.js';

/** A mailer that keeps what the service sends, for tests to read (the SMTP path has its own test). */
export class Mailbox implements Mailer {
  readonly mails: Mail[] = [];
  private readonly waiters = new Set<() => void>();

  async send(mail: Mail): Promise<void> {
    this.mails.push(mail);
    for (const wake of this.waiters) wake();
  }

  async close(): Promise<void> {}

  /** The mails to an address, oldest first. */
  to(address: string): Mail[] {
    return this.mails.filter((m) => m.to === address);
  }

  /** The newest mail to `address` whose subject matches, waiting up to 5 s for it. */
  async waitFor(address: string, subject: RegExp, timeoutMs = 5000): Promise<Mail> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.to(address)
        .filter((m) => subject.test(m.subject))
        .at(-1);
      if (found) return found;
      if (Date.now() > deadline)
        throw new Error(
          `no mail to ${address} matching ${subject}; sent: ${JSON.stringify(this.mails.map((m) => [m.to, m.subject]))}`,
        );
      await new Promise<void>((resolve) => {
        const wake = () => {
          this.waiters.delete(wake);
          resolve();
        };
        this.waiters.add(wake);
        setTimeout(wake, 100);
      });
    }
  }
}

/** The secret of the confirmation link in a mail. */
export function verificationToken(mail: Mail): string {
  const match = /\/verify-email\?token=([A-Za-z0-9_-]+)/.exec(mail.text);
  if (!match) throw new Error(`no confirmation link in: ${mail.text}`);
  return match[1]!;
}
