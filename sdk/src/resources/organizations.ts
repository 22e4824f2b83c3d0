/**
 * Organizations (teams): their members, invitations and audit log. Managed with a session only;
 * which organization the other calls act for is the client's `organization` (setOrganization()).
 */
import type { Call, CreateOptions, RequestOptions } from '../core.js';
import type { QueryParams, RequestBody } from '../operations.js';

/** What happens to the API keys a removed member created in the organization. */
export interface RemoveMemberOptions {
  /** `revoke` (the server's default): they stop working at once; `keep`: they stay with the organization (not when leaving). */
  apiKeys?: 'revoke' | 'keep';
}

function membersResource(call: Call) {
  return {
    /** With each one's role; page with `cursor` or with paginate(). */
    list: (orgId: string, query?: QueryParams<'listOrganizationMembers'>, options?: RequestOptions) =>
      call('listOrganizationMembers', { params: { id: orgId }, query }, options),
    /** Change a member's role (admins; making or changing an owner needs an owner). */
    update: (orgId: string, userId: string, body: RequestBody<'updateOrganizationMember'>, options?: RequestOptions) =>
      call('updateOrganizationMember', { params: { id: orgId, user_id: userId }, body }, options),
    /** Remove a member (admins), or leave (your own user id). */
    remove: (orgId: string, userId: string, { apiKeys }: RemoveMemberOptions = {}, options?: RequestOptions) =>
      call('removeOrganizationMember', { params: { id: orgId, user_id: userId }, query: { api_keys: apiKeys } }, options),
  };
}

function invitationsResource(call: Call) {
  return {
    /** Mails a link to the address (admins; inviting an owner needs an owner). The link is shown nowhere else. */
    create: (orgId: string, body: RequestBody<'createOrganizationInvitation'>, options?: CreateOptions) =>
      call('createOrganizationInvitation', { params: { id: orgId }, body }, options),
    list: (orgId: string, query?: QueryParams<'listOrganizationInvitations'>, options?: RequestOptions) =>
      call('listOrganizationInvitations', { params: { id: orgId }, query }, options),
    /** Withdraws a pending invitation: its link stops working. */
    revoke: (orgId: string, invitationId: string, options?: RequestOptions) =>
      call('revokeOrganizationInvitation', { params: { id: orgId, invitation_id: invitationId } }, options),
  };
}

export function organizationsResource(call: Call) {
  return {
    /** The organizations you belong to, newest first, with your role in each (your personal one among them). */
    list: (query?: QueryParams<'listOrganizations'>, options?: RequestOptions) => call('listOrganizations', { query }, options),
    /** A new organization, with you as its owner. */
    create: (body: RequestBody<'createOrganization'>, options?: CreateOptions) => call('createOrganization', { body }, options),
    get: (orgId: string, options?: RequestOptions) => call('getOrganization', { params: { id: orgId } }, options),
    /** Rename (admins). */
    update: (orgId: string, body: RequestBody<'updateOrganization'>, options?: RequestOptions) => call('updateOrganization', { params: { id: orgId }, body }, options),
    /** Deletes it with its agents, chats, webhooks and API keys (owners; a personal organization goes only with its account). */
    delete: (orgId: string, options?: RequestOptions) => call('deleteOrganization', { params: { id: orgId } }, options),
    /** Who did what in the organization, newest first (admins). */
    auditLog: (orgId: string, query?: QueryParams<'listOrganizationAuditLog'>, options?: RequestOptions) =>
      call('listOrganizationAuditLog', { params: { id: orgId }, query }, options),
    members: membersResource(call),
    invitations: invitationsResource(call),
  };
}

/** The invitee's side: accepting the mailed link's token. */
export function acceptInvitationResource(call: Call) {
  return {
    /**
     * Joins the invitation's organization; resolves to it (with your role). The signed-in account's
     * email must be the invitation's, and confirmed.
     */
    accept: (token: string, options?: RequestOptions) => call('acceptInvitation', { body: { token } }, options),
    /** Before signing in: the organization's name, who invites, the role and the expiry (a link that does not work is `invalid_invitation`). */
    preview: (token: string, options?: RequestOptions) => call('previewInvitation', { query: { token } }, options),
  };
}
