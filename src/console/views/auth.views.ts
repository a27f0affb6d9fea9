/** Sign-in, sign-up, password reset, email verification and invitations: plain forms. */
import { html, type Html } from './html.ts'
import { fieldState } from './layout.ts'

const hidden = (csrf: string) => html`<input type="hidden" name="_csrf" value="${csrf}">`

export function signInBody(o: { csrf: string; email?: string; signup: 'open' | 'invite' | 'closed'; next?: string | undefined }): Html {
  return html`<section class="card narrow">
  <form method="post" action="/console/sign-in">
    ${hidden(o.csrf)}
    ${o.next ? html`<input type="hidden" name="next" value="${o.next}">` : html``}
    <label for="email">Email</label>
    <input type="email" id="email" name="email" autocomplete="username" required value="${o.email ?? ''}">
    <label for="password">Password</label>
    <input type="password" id="password" name="password" autocomplete="current-password" required>
    <button type="submit">Sign in</button>
  </form>
  <p><a href="/console/forgot">Forgot your password?</a></p>
  ${o.signup === 'open' ? html`<p>New here? <a href="/console/sign-up">Create an account</a>: the free plan has 1,000 credits a month.</p>` : html``}
</section>`
}

export function signUpBody(o: { csrf: string; email?: string; accountName?: string; invitation?: string; invalid?: readonly string[] | undefined }): Html {
  return html`<section class="card narrow">
  <p>Your account starts on the free plan: 1,000 credits a month, 5 requests a second. Your first API key is shown once you are in.</p>
  <form method="post" action="/console/sign-up">
    ${hidden(o.csrf)}
    ${o.invitation ? html`<input type="hidden" name="invitation" value="${o.invitation}">` : html``}
    <label for="email">Email</label>
    <input type="email" id="email" name="email" autocomplete="email" required value="${o.email ?? ''}"${fieldState('email', o)}>
    <label for="password">Password</label>
    <input type="password" id="password" name="password" autocomplete="new-password" minlength="10" required${fieldState('password', { ...o, hint: 'password-hint' })}>
    <p class="hint" id="password-hint">At least 10 characters.</p>
    <label for="account-name">Company or project name (optional)</label>
    <input type="text" id="account-name" name="accountName" maxlength="200" value="${o.accountName ?? ''}"${fieldState('accountName', o)}>
    <button type="submit">Create account</button>
  </form>
  <p>Already have an account? <a href="/console/sign-in">Sign in</a></p>
</section>`
}

export function forgotBody(o: { csrf: string; sent?: boolean }): Html {
  return html`<section class="card narrow">
  ${o.sent ? html`<p class="notice ok" role="status">If an account uses that address, a link to set a new password is on its way. It works for an hour.</p>` : html``}
  <form method="post" action="/console/forgot">
    ${hidden(o.csrf)}
    <label for="email">Email</label>
    <input type="email" id="email" name="email" autocomplete="email" required>
    <button type="submit">Send a reset link</button>
  </form>
</section>`
}

export function resetBody(o: { csrf: string; token: string; invalid?: readonly string[] | undefined }): Html {
  return html`<section class="card narrow">
  <form method="post" action="/console/reset">
    ${hidden(o.csrf)}
    <input type="hidden" name="token" value="${o.token}">
    <label for="password">New password</label>
    <input type="password" id="password" name="password" autocomplete="new-password" minlength="10" required${fieldState('password', { ...o, hint: 'password-hint' })}>
    <p class="hint" id="password-hint">At least 10 characters. Every other session of yours is signed out.</p>
    <button type="submit">Set the password</button>
  </form>
</section>`
}

export function inviteBody(o: { csrf: string; token: string; accountName: string; role: string; signedIn: boolean; invalid?: readonly string[] | undefined }): Html {
  return html`<section class="card narrow">
  <p>You are invited to join <strong>${o.accountName}</strong> as ${o.role === 'owner' ? 'an owner' : 'a member'}.</p>
  <form method="post" action="/console/invite">
    ${hidden(o.csrf)}
    <input type="hidden" name="token" value="${o.token}">
    ${
      o.signedIn
        ? html``
        : html`<label for="password">Choose a password (or the one you have, if you already use this console)</label>
    <input type="password" id="password" name="password" autocomplete="new-password" minlength="10" required${fieldState('password', o)}>`
    }
    <button type="submit">Join</button>
  </form>
</section>`
}

export function messageBody(text: string, link?: { href: string; label: string }): Html {
  return html`<section class="card narrow"><p>${text}</p>${link ? html`<p><a href="${link.href}">${link.label}</a></p>` : html``}</section>`
}

export function operatorSignInBody(o: { csrf: string }): Html {
  return html`<section class="card narrow">
  <form method="post" action="/console/operator/sign-in">
    ${hidden(o.csrf)}
    <label for="token">Admin token</label>
    <input type="password" id="token" name="token" autocomplete="current-password" required aria-describedby="token-hint">
    <p class="hint" id="token-hint">The value of PRONET_ADMIN_TOKEN. The session lasts 12 hours.</p>
    <button type="submit">Sign in</button>
  </form>
</section>`
}

/** A destructive form asked again on a page of its own, for a browser that runs no script. */
export function confirmBody(o: { question: string; action: string; csrf: string; button: string; back: string }): Html {
  return html`<section class="card narrow">
  <p>${o.question}</p>
  <form method="post" action="${o.action}">
    <input type="hidden" name="_csrf" value="${o.csrf}">
    <input type="hidden" name="confirmed" value="yes">
    <button type="submit" class="danger">${o.button}</button>
    <a class="button secondary" href="${o.back}">Cancel</a>
  </form>
</section>`
}
