import nodemailer from 'nodemailer';
import type { Mailer, MailMessage } from '../../ports/mailer';

/**
 * Mail over SMTP with nodemailer, to the server `url` names (`smtp://user:password@host:587`, or
 * `smtps://` for implicit TLS; STARTTLS is used whenever the server offers it). Pooled connections:
 * a burst of sign-ins does not open a connection per message.
 */
export function smtpMailer(url: string, from: string): Mailer {
  const transport = nodemailer.createTransport({ ...parsed(url), pool: true, maxConnections: 2 });
  return {
    binding: 'smtp',
    async send(message: MailMessage) {
      await transport.sendMail({ from, to: message.to, subject: message.subject, text: message.text });
    },
    close() {
      transport.close();
    },
  };
}

function parsed(url: string) {
  const u = new URL(url);
  const secure = u.protocol === 'smtps:';
  return {
    host: u.hostname,
    port: u.port ? Number(u.port) : secure ? 465 : 587,
    secure,
    ...(u.username
      ? { auth: { user: decodeURIComponent(u.username), pass: decodeURIComponent(u.password) } }
      : {}),
  };
}
