/** The organization context against the live server: switching what the hooks act for, creating one, joining by invitation. */
import { createGatehouse } from '@gatehouse/sdk';
import { act, render, waitFor } from '@testing-library/react-native';
import { useEffect } from 'react';
import { Text } from 'react-native';
import { GatehouseProvider, handleAuthLink, useAgents, useOrganization, type ListState, type UseOrganization } from '../src/index.js';
import { confirmEmail, mailedLink, returningUser, SERVER } from './helpers.js';

function Capture<T>({ hook, onState }: { hook: () => T; onState: (state: T) => void }) {
  const state = hook();
  useEffect(() => {
    onState(state);
  });
  return <Text>probe</Text>;
}

describe('organization context', () => {
  it('lists the organizations, creates one and switches to it: the lists load again for it, and back', async () => {
    const { storage } = await returningUser();
    const gh = createGatehouse({ baseUrl: SERVER, tokenStore: storage });
    await gh.agents.create({ name: 'Mine', model: 'gpt-4o' });
    let orgs: UseOrganization | undefined;
    let agents: ListState<{ name: string }> | undefined;
    render(
      <GatehouseProvider baseUrl={SERVER} tokenStore={storage}>
        <Capture hook={() => useOrganization()} onState={(s) => (orgs = s)} />
        <Capture hook={() => useAgents()} onState={(s) => (agents = s)} />
      </GatehouseProvider>,
    );
    await waitFor(() => expect(orgs?.loading === false && agents?.loading === false).toBe(true));
    expect(orgs!.current).toBeNull();
    expect(orgs!.items.map((o) => [o.personal, o.role])).toEqual([[true, 'owner']]);
    expect(agents!.items.map((a) => a.name)).toEqual(['Mine']);

    let team: { id: string } | undefined;
    await act(async () => void (team = await orgs!.create('Team')));
    await waitFor(() => expect(agents?.loading).toBe(false));
    expect(orgs!.current).toBe(team!.id);
    expect(orgs!.items[0]).toMatchObject({ id: team!.id, name: 'Team', role: 'owner', personal: false });
    expect(agents!.items).toEqual([]);

    const teamClient = createGatehouse({ baseUrl: SERVER, tokenStore: storage, organization: team!.id });
    await teamClient.agents.create({ name: 'Shared', model: 'gpt-4o' });
    await act(() => agents!.refresh());
    expect(agents!.items.map((a) => a.name)).toEqual(['Shared']);

    act(() => orgs!.switchTo(null));
    await waitFor(() => expect(agents?.loading === false && agents.items.map((a) => a.name).join()).toBe('Mine'));
  });

  it('joins by a mailed invitation and sees the shared agents', async () => {
    const owner = await returningUser('Owner');
    const invitee = await returningUser('Invitee');
    await confirmEmail(invitee.email);
    const ownerClient = createGatehouse({ baseUrl: SERVER, tokenStore: owner.storage });
    const team = await ownerClient.organizations.create({ name: 'Crew' });
    ownerClient.setOrganization(team.id);
    await ownerClient.agents.create({ name: 'Crew agent', model: 'gpt-4o' });
    await ownerClient.organizations.invitations.create(team.id, { email: invitee.email, role: 'member' });
    const token = new URL(await mailedLink(invitee.email, 'accept-invitation'), SERVER).searchParams.get('token')!;

    let orgs: UseOrganization | undefined;
    let agents: ListState<{ name: string }> | undefined;
    render(
      <GatehouseProvider baseUrl={SERVER} tokenStore={invitee.storage}>
        <Capture hook={() => useOrganization()} onState={(s) => (orgs = s)} />
        <Capture hook={() => useAgents()} onState={(s) => (agents = s)} />
      </GatehouseProvider>,
    );
    await waitFor(() => expect(orgs?.loading === false && agents?.loading === false).toBe(true));
    await act(async () => void (await orgs!.accept(token)));
    expect(orgs!.current).toBe(team.id);
    await waitFor(() => expect(agents?.loading === false && agents.items.map((a) => a.name).join()).toBe('Crew agent'));
    expect(orgs!.items.find((o) => o.id === team.id)?.role).toBe('member');
  });

  it('opens an invitation link in the app: handleAuthLink names the organization and who invites, and accept() joins', async () => {
    const owner = await returningUser('Owner Ada');
    const invitee = await returningUser('Invitee');
    await confirmEmail(invitee.email);
    const ownerClient = createGatehouse({ baseUrl: SERVER, tokenStore: owner.storage });
    const team = await ownerClient.organizations.create({ name: 'Harbour' });
    await ownerClient.organizations.invitations.create(team.id, { email: invitee.email, role: 'viewer' });
    const link = await mailedLink(invitee.email, 'accept-invitation');
    expect(link.startsWith('gatehouse-example://auth/accept-invitation?token=')).toBe(true); // APP_LINK_URL: the mail opens the app

    const client = createGatehouse({ baseUrl: SERVER, tokenStore: invitee.storage });
    const opened = await handleAuthLink(client, link);
    if (opened.kind !== 'invitation') throw new Error(`not an invitation: ${opened.kind}`);
    expect(opened.preview).toEqual({ organization_name: 'Harbour', inviter_name: 'Owner Ada', role: 'viewer', expires_at: expect.any(String) });
    expect(await opened.accept()).toMatchObject({ id: team.id, role: 'viewer' });
    await expect(handleAuthLink(client, link)).rejects.toMatchObject({ code: 'invalid_invitation' });
  });
});
