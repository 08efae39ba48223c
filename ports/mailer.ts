/**
 * Sends email: the platform's sign-in links. One message at a time, plain text; `send` resolves once
 * the message is handed over (to the SMTP server, or to the log where none is configured).
 */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  /** For /health: `smtp` or `log`. */
  readonly binding: string;
  send(message: MailMessage): Promise<void>;
  close(): void;
}
