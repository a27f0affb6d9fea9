/**
 * The console's mail: verification, password reset and invitation links. With SMTP_URL each message
 * goes out through that server; without it, the recipient, subject and link are written to the log
 * at info level, so that an operator without mail can still pass the link on. That link holds a
 * one-time token: writing it to the log is intended (the README says so), and the only place a
 * secret of the console is logged.
 */
import nodemailer from 'nodemailer'
import { isIP } from 'node:net'
import type { Role } from '../ports/identity-store.ts'

export interface MailMessage {
  to: string
  subject: string
  /** The plain-text body; it contains the link. */
  text: string
  /** The one link the message is about. */
  link: string
}

export interface Mailer {
  /** Sends one message (resolves once the server or the log has it). */
  send(message: MailMessage): Promise<void>
}

/** The logger's shape this needs (pino's). */
export interface MailLogger {
  info(obj: object, msg: string): void
}

/** Writes each message's recipient, subject and link to the log instead of sending it. */
export function createLogMailer(logger: MailLogger): Mailer {
  return {
    async send({ to, subject, link }) {
      logger.info({ to, subject, link }, 'console mail (no SMTP_URL set): the link is for the recipient only')
    },
  }
}

/** Sends through the SMTP server of `url` (smtp:// or smtps://, credentials in the URL). */
export function createSmtpMailer(opts: { url: string; from: string }): Mailer & { close(): void } {
  const transport = nodemailer.createTransport(opts.url)
  return {
    async send({ to, subject, text }) {
      await transport.sendMail({ from: opts.from, to, subject, text })
    },
    close: () => transport.close(),
  }
}

/** The sender: no-reply at the console's host name (localhost when the console is reached by IP address). */
export function defaultFrom(publicUrl: string): string {
  const host = new URL(publicUrl).hostname
  return `pronet <no-reply@${host === '' || isIP(host.replace(/^\[|\]$/g, '')) !== 0 ? 'localhost' : host}>`
}

/** SMTP when `smtpUrl` is set, else the log. */
export function createMailer(opts: { smtpUrl: string | undefined; publicUrl: string; logger: MailLogger; from?: string }): Mailer {
  return opts.smtpUrl === undefined
    ? createLogMailer(opts.logger)
    : createSmtpMailer({ url: opts.smtpUrl, from: opts.from ?? defaultFrom(opts.publicUrl) })
}

/** A console page's address carrying a one-time token: `${publicUrl}/console/${page}?token=…`. */
export const consoleLink = (publicUrl: string, page: 'verify' | 'reset' | 'invite', token: string): string =>
  `${publicUrl}/console/${page}?token=${encodeURIComponent(token)}`

const HOURS = (ms: number) => Math.round(ms / 3_600_000)

export function verificationMail(to: string, link: string, validMs: number): MailMessage {
  return {
    to,
    subject: 'Confirm your email address for pronet',
    link,
    text: `Open this link to confirm that ${to} is your address:\n\n${link}\n\nIt works once, for ${HOURS(validMs)} hours. If you did not sign up, ignore this message.\n`,
  }
}

export function resetMail(to: string, link: string, validMs: number): MailMessage {
  return {
    to,
    subject: 'Reset your pronet password',
    link,
    text:
      `Someone asked to reset the password of ${to}. Open this link to choose a new one:\n\n${link}\n\n` +
      `It works once, for ${HOURS(validMs)} hour${HOURS(validMs) === 1 ? '' : 's'}, and signs out every session of yours. ` +
      'If you did not ask, ignore this message: your password stays as it is.\n',
  }
}

export function invitationMail(to: string, link: string, accountName: string, role: Role, validMs: number): MailMessage {
  return {
    to,
    subject: `You are invited to the pronet account "${accountName}"`,
    link,
    text:
      `You are invited to join the pronet account "${accountName}" as ${role === 'owner' ? 'an owner' : 'a member'}. Open this link to accept:\n\n` +
      `${link}\n\nIt works once, for ${Math.round(validMs / 86_400_000)} days. If you do not expect it, ignore this message.\n`,
  }
}

/** To an address that is already a user's, when someone tries to sign up with it. */
export function signUpAttemptMail(to: string, link: string): MailMessage {
  return {
    to,
    subject: 'Someone tried to sign up to pronet with your address',
    link,
    text:
      `Someone tried to create a pronet account with ${to}, which already has one. If it was you, sign in ` +
      `(or ask for a password reset there):\n\n${link}\n\nIf it was not you, nothing has changed.\n`,
  }
}
