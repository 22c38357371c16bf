// Email domains of an organization: listing them, and checking a domain's
// form as Zulip does, with its refusals.
import type { Db } from '../../db/client';
import { ApiError } from '../../errors';
import type { StateProvider } from '../state';

/** The organization's email domains, oldest first, as the API shows them. */
export async function listRealmDomains(db: Db, realmId: number) {
  const rows = await db.realmDomain.findMany({ where: { realmId }, orderBy: { id: 'asc' } });
  return rows.map((row) => ({ domain: row.domain, allow_subdomains: row.allowSubdomains }));
}

/** `realm_domains`: the organization's email domains. */
export const realmDomainsState: StateProvider = async ({ db, realm }) => ({
  realm_domains: await listRealmDomains(db, realm.id),
});

// The first thing wrong with the form of `domain` (already trimmed and lower-cased), if any.
function domainProblem(domain: string): string | undefined {
  if (domain.length === 0) return "Domain can't be empty.";
  if (!domain.includes('.')) return 'Domain must have at least one dot (.)';
  if (domain.length > 255) return 'Domain is too long';
  if (domain.startsWith('.') || domain.endsWith('.'))
    return 'Domain cannot start or end with a dot (.)';
  for (const label of domain.split('.')) {
    if (!label) return "Consecutive '.' are not allowed.";
    if (label.startsWith('-') || label.endsWith('-'))
      return "Subdomains cannot start or end with a '-'.";
    if (!/^[a-z0-9-]*$/.test(label)) return "Domain can only have letters, numbers, '.' and '-'s.";
  }
  return undefined;
}

/** Refuses a domain that is not a well-formed domain name: "Invalid domain: <problem>". */
export function checkDomain(domain: string): void {
  const problem = domainProblem(domain);
  if (problem) throw new ApiError(`Invalid domain: ${problem}`);
}
