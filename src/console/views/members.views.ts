/** Members of the account: who they are, their role, and (for an owner) invitations and changes. */
import type { MemberView, OpenInvitation } from '../../identity/identity.service.ts'
import { when } from './format.ts'
import { html, type Html } from './html.ts'
import { fieldState } from './layout.ts'

/** What an owner may change of a member: an account's only owner can be neither made a member nor removed. */
function changes(m: MemberView, onlyOwner: boolean, token: Html): Html {
  if (m.role === 'owner' && onlyOwner) return html`<span class="hint">The only owner: make another member an owner first.</span>`
  const role = m.role === 'owner' ? 'member' : 'owner'
  return html`<form method="post" action="/console/members/${m.userId}/role" class="inline">${token}<input type="hidden" name="role" value="${role}"><button type="submit" class="secondary" aria-label="Make ${role}: ${m.email}">Make ${role}</button></form>
          <form method="post" action="/console/members/${m.userId}/remove" class="inline" data-confirm="Remove ${m.email} from this account?">${token}<button type="submit" class="danger" aria-label="Remove ${m.email}">Remove</button></form>`
}

/** The invitations still open, each with a way to withdraw it (owners only). */
function invitationsSection(invitations: readonly OpenInvitation[], token: Html): Html {
  const rows = invitations.map(
    (i) => html`<tr><td>${i.email}</td><td>${i.role}</td><td>${i.invitedBy}</td><td>${when(i.sentAt)}</td><td>${when(i.expiresAt)}</td><td><form method="post" action="/console/members/invitations/withdraw" class="inline">${token}<input type="hidden" name="invitation" value="${i.id}"><button type="submit" class="danger" aria-label="Withdraw the invitation to ${i.email}">Withdraw</button></form></td></tr>`,
  )
  return html`<section class="card" aria-labelledby="waiting">
  <h2 id="waiting">Invitations not yet accepted</h2>
  ${
    invitations.length === 0
      ? html`<p>No invitation is waiting.</p>`
      : html`<div class="table-wrap" tabindex="0" role="region" aria-label="Invitations not yet accepted">
  <table class="named">
    <caption>Open invitations: each link works once, until it expires or is withdrawn</caption>
    <thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Sent by</th><th scope="col">Sent</th><th scope="col">Expires</th><th scope="col">Withdraw</th></tr></thead>
    <tbody>${rows}</tbody>
  </table></div>`
  }
  <p class="hint">An invitation is withdrawn too when the owner who sent it leaves the account or becomes a member.</p>
</section>`
}

export function membersBody(o: {
  members: readonly MemberView[]
  /** The account's open invitations, shown to owners. */
  invitations?: readonly OpenInvitation[]
  csrf: string
  owner: boolean
  self: string
  /** The invitation form as it was sent, when it is shown again with an error. */
  invite?: { email: string; role: 'owner' | 'member' }
  /** The fields the page's error is about. */
  invalid?: readonly string[] | undefined
}): Html {
  const token = html`<input type="hidden" name="_csrf" value="${o.csrf}">`
  const onlyOwner = o.members.filter((m) => m.role === 'owner').length === 1
  return html`<section class="card" aria-labelledby="people">
  <h2 id="people">People in this account</h2>
  <div class="table-wrap" tabindex="0" role="region" aria-label="Members">
  <table class="named">
    <caption>Members and their roles</caption>
    <thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Since</th>${o.owner ? html`<th scope="col">Change</th>` : html``}</tr></thead>
    <tbody>${o.members.map(
      (m) => html`<tr><td>${m.email}${m.emailVerified ? '' : ' (address not confirmed)'}${m.userId === o.self ? ' (you)' : ''}</td><td>${m.role}</td><td>${when(m.since)}</td>${
        o.owner ? html`<td>${changes(m, onlyOwner, token)}</td>` : html``
      }</tr>`,
    )}</tbody>
  </table></div>
  <p class="hint">An owner can do everything; a member manages their own keys, reads usage and billing.</p>
</section>
${
  o.owner
    ? html`<section class="card" aria-labelledby="invite">
  <h2 id="invite">Invite someone</h2>
  <form method="post" action="/console/members/invite" class="narrow">
    ${token}
    <label for="invite-email">Email</label>
    <input type="email" id="invite-email" name="email" required value="${o.invite?.email ?? ''}"${fieldState('email', o)}>
    <label for="invite-role">Role</label>
    <select id="invite-role" name="role"${fieldState('role', o)}><option value="member"${o.invite?.role === 'owner' ? '' : html` selected`}>Member</option><option value="owner"${o.invite?.role === 'owner' ? html` selected` : ''}>Owner</option></select>
    <button type="submit">Send the invitation</button>
  </form>
</section>
${invitationsSection(o.invitations ?? [], token)}`
    : html``
}`
}
