/** What the choice needs of a Membership (access/organizations/organization-cache.ts). */
export interface BudgetHolder {
  org: { id: string; tier: string; personal: number; limit_per_minute: number | null; limit_per_day: number | null };
  teamOwner: string | null;
}

/**
 * Which budget an organization's requests spend from (the rate limiter's key). Organizations are
 * free to make, so a free-tier team without limits of its own spends from one budget shared by
 * every free team of its owner, `free-teams:<owner's user id>`: one extra free budget per person,
 * however many teams they make (a team of them used to get 100 a minute each, up to 100 teams).
 * It is kept apart from the owner's personal organization's budget: a team's members and keys must
 * not spend the owner's own traffic into 429s nor see its use, and a paid personal organization's
 * counter must not be checked against free limits. A paid tier, custom limits set by an
 * administrator, and every personal organization keep their own budget. The owner is the earliest
 * owner still a member (`teamOwner`), so handing a team on hands its budget on too.
 */
export function budgetKeyOf(membership: BudgetHolder): string {
  const { org, teamOwner } = membership;
  const sharesOwners = org.tier === 'free' && org.personal !== 1 && org.limit_per_minute === null && org.limit_per_day === null;
  return sharesOwners && teamOwner !== null ? `free-teams:${teamOwner}` : org.id;
}
