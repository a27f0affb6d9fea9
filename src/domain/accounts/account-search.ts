/**
 * The operator's search for accounts: by id, a part of the name, the start of a key, or the exact
 * address of a console user who belongs to the account. The console and the admin API share it.
 */
import type { AccountRecord, AccountStore } from '../../ports/account-store.ts'
import type { IdentityStore } from '../../ports/identity-store.ts'

export type AccountSearch = (query: string, limit: number) => Promise<AccountRecord[]>

export function createAccountSearch(deps: { accounts: AccountStore; identity: IdentityStore }): AccountSearch {
  return async (query, limit) => {
    const q = query.trim()
    // No id, name, key or address holds a NUL (PostgreSQL refuses one in text): such a query finds nothing, on every store.
    if (q.includes('\u0000')) return []
    const found = await deps.accounts.searchAccounts(q, limit)
    if (!q.includes('@')) return found
    const user = await deps.identity.findUserByEmail(q.toLowerCase())
    for (const m of user ? await deps.identity.listMemberships(user.id) : []) {
      if (found.length >= limit) break
      if (found.some((a) => a.id === m.accountId)) continue
      const account = await deps.accounts.getAccount(m.accountId)
      if (account) found.push(account)
    }
    return found
  }
}
