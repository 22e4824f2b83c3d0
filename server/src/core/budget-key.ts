/** What the choice needs of a Membership (modules/organizations/organization-cache.ts). */
export interface BudgetHolder {
  org: { id: string; tier: string; personal: number; limit_per_minute: number | null; limit_per_day: number | null };
  ownerBudget: string | null;
}

/**
 * Which budget an organization's requests spend from (the rate limiter's key). Organizations are
 * free to make, so a free-tier one without limits of its own spends from its owner's personal
 * organization's budget: one free budget per person, however many organizations they make (a
 * team of them used to get 100 a minute each, up to 100 organizations). A paid tier, custom limits
 * set by an administrator, and every personal organization keep their own budget. The owner is the
 * earliest owner still a member (`ownerBudget`), so handing a team on hands its budget on too.
 */
export function budgetKeyOf(membership: BudgetHolder): string {
  const { org, ownerBudget } = membership;
  const sharesOwners = org.tier === 'free' && org.personal !== 1 && org.limit_per_minute === null && org.limit_per_day === null;
  return sharesOwners && ownerBudget !== null ? ownerBudget : org.id;
}
