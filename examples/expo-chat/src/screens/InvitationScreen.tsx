/** Opened by a mailed invitation link: who invites to which organization, and joining it (signed in with the invited address). */
import { useOrganization, type AuthLinkResult } from '@gatehouse/react-native';
import { useState } from 'react';
import { Text } from 'react-native';
import { Button, ErrorLine, Screen, styles } from '../ui';

type Invitation = Extract<AuthLinkResult, { kind: 'invitation' }>;

export function InvitationScreen({ invitation, signedIn, onDone }: { invitation: Invitation; signedIn: boolean; onDone: () => void }) {
  const { switchTo } = useOrganization();
  const [error, setError] = useState<unknown>(null);
  const { preview } = invitation;

  async function join() {
    setError(null);
    try {
      const organization = await invitation.accept();
      switchTo(organization.id);
      onDone();
    } catch (failure) {
      setError(failure);
    }
  }

  return (
    <Screen title="Join an organization">
      <Text style={styles.muted}>
        {preview.inviter_name ?? 'Someone'} invited you to join {preview.organization_name} as {preview.role}.
      </Text>
      {signedIn ? (
        <Button title="Join" onPress={join} />
      ) : (
        <Text style={styles.muted}>Log in with the address the invitation was sent to, then open the link again.</Text>
      )}
      <ErrorLine error={error} />
      <Button kind="plain" title="Not now" onPress={onDone} />
    </Screen>
  );
}
