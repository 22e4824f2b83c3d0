import { randomBytes } from 'node:crypto';
import { tokenFromMail } from '../smtp-inbox.js';
import { ContractClient } from './contract-client.js';
import type { Stack } from './stack.js';
import type { SpecOperation } from './spec.js';
import { unknownIds } from './sweeps/operations.js';

/**
 * What every journey gets: the running stack and a client bound to the proxies. Journeys are
 * defined before beforeAll has started the stack, so they receive a getter.
 */
export interface Context {
  stack: Stack;
  api: ContractClient;
  /** PostgreSQL: concurrent requests really interleave in the server (see coverage.ts). */
  postgres: boolean;
  /** One admin for the whole run (see signUpAdmin), made on first use. */
  admin(): Promise<Actor>;
  /** A service key of that admin (scope credentials:verify, for POST /v1/auth/verify), made on first use. */
  serviceKey(): Promise<string>;
}
export type GetContext = () => Context;

export const PASSWORD = 'Vivid-Otter-Quarry-42';
export const NEW_PASSWORD = 'Amber-Lantern-Harbour-77';

/** An address in 198.18.0.0/15 (benchmarking range): per-IP buckets in a shared Redis are this run's own. */
export function randomIp(): string {
  const [a, b] = randomBytes(2);
  return `198.${18 + (a! & 1)}.${b}.${1 + (randomBytes(1)[0]! % 254)}`;
}

let counter = 0;
export function uniqueEmail(tag: string): string {
  return `conf-${tag}-${++counter}.${randomBytes(4).toString('hex')}@example.com`;
}

export interface Actor {
  /** A client with the actor's own address. */
  api: ContractClient;
  id: string;
  email: string;
  password: string;
  access: string;
  refresh: string;
}

/** Follows the confirmation link the sign-up mailed (adding a way into the account needs it). */
export async function confirmEmail(stack: Stack, actor: Actor): Promise<void> {
  const token = tokenFromMail(await stack.inbox.waitFor(actor.email, /Confirm your email/), 'verify-email');
  await actor.api.call('verifyEmail', { json: { token } }, 204);
}

/** Registers and logs in a fresh account through the strict proxy. */
export async function signUp(api: ContractClient, tag: string): Promise<Actor> {
  const client = api.from(randomIp());
  const email = uniqueEmail(tag);
  const user = await client.call('register', { json: { email, password: PASSWORD, name: `Conformance ${tag}` } }, 201);
  const tokens = await client.call('login', { json: { username: email, password: PASSWORD } }, 200);
  return { api: client, id: user.body.id, email, password: PASSWORD, access: tokens.body.access_token, refresh: tokens.body.refresh_token };
}

/**
 * An admin on the `pro` tier: its access token reaches every protected operation, and the sweeps
 * spend more than a free account's 100 requests a minute. The role is granted with the CLI before
 * the first authenticated request, so no instance has the account cached yet.
 */
export async function signUpAdmin(stack: Stack, api: ContractClient): Promise<Actor> {
  const client = api.from(randomIp());
  const email = uniqueEmail('admin');
  const user = await client.call('register', { json: { email, password: PASSWORD, name: 'Conformance admin' } }, 201);
  const granted = await stack.cli(['users', 'grant-admin', email]);
  if (granted.code !== 0) throw new Error(`grant-admin failed: ${granted.output}`);
  const tokens = await client.call('login', { json: { username: email, password: PASSWORD } }, 200);
  await client.call('adminUpdateUser', { token: tokens.body.access_token, path: { id: user.body.id }, json: { tier: 'pro' } }, 200);
  return { api: client, id: user.body.id, email, password: PASSWORD, access: tokens.body.access_token, refresh: tokens.body.refresh_token };
}

const ownOrganizations = new WeakMap<Actor, Promise<string>>();

/**
 * The path ids a sweep sends: an unknown id of each kind (sweeps/operations.ts), except that an
 * operation under /v1/organizations/{id} acts on the caller's own (personal) organization: the
 * authenticate step answers 404 for one the caller is not in before it reads the request, so a
 * request mistake is seen only on an organization of one's own.
 */
export async function sweepIds(op: SpecOperation, actor: Actor | undefined): Promise<Record<string, string>> {
  const ids = unknownIds(op);
  if (!actor || !op.path.startsWith('/v1/organizations/{id}')) return ids;
  return { ...ids, id: await ownOrganization(actor) };
}

/** The actor's personal organization (read once: a sweep that spends the account-route limit reads it first). */
export function ownOrganization(actor: Actor): Promise<string> {
  let own = ownOrganizations.get(actor);
  if (!own) {
    own = actor.api.call('getMe', { token: actor.access }, 200).then((me) => me.body.personal_organization_id as string);
    ownOrganizations.set(actor, own);
  }
  return own;
}
