import type { Logger } from 'pino';
import type { Mailer, MailMessage } from '../../ports/mailer';

/**
 * Without an SMTP server (GOV_SMTP_URL unset, the embedded default), a message is written to the
 * server log at info level instead, so a developer can sign in by copying the link from it. Never
 * in production: the log then holds working sign-in links.
 */
export function logMailer(logger: Logger): Mailer {
  return {
    binding: 'log',
    async send(message: MailMessage) {
      logger.info(
        { mail: { to: message.to, subject: message.subject, text: message.text } },
        'mail not sent (no GOV_SMTP_URL): its text is here instead',
      );
    },
    close() {},
  };
}
