/**
 * @gatehouse/react-native: Gatehouse for React Native and Expo apps, on top of @gatehouse/sdk.
 */
export { GatehouseProvider, useGatehouse, type GatehouseProviderProps } from './provider.js';
export { useSession, type UseSession } from './use-session.js';
export { useBiometricLock, type UseBiometricLock } from './use-biometric-lock.js';
export type { BiometricLockOptions, BiometricLockState } from './biometric-lock.js';
export type { BiometricPromptOptions, LocalAuthenticationLike } from './biometric-prompt.js';
export { useOrganization, type Organization, type UseOrganization } from './use-organization.js';
export { useAgents, useChats, useMessages, type Agent, type Chat, type Message, type MessagesState, type PageOptions } from './data-hooks.js';
export type { ListState } from './use-list.js';
export { secureStoreTokenStore, type SecureStoreLike, type SecureStoreOptions } from './secure-store.js';
export { memorySessionStorage, withUserCache, type SessionStorage, type User } from './storage.js';
export { addPasskey, logInWithPasskey, type PasskeyAuthenticator } from './passkeys.js';
export { authorizeWithProvider, type AuthSessionResult, type OpenAuthSession, type ProviderSignInOptions } from './provider-sign-in.js';
export { authorizeInBrowser, createAuthorizationClient, useDeviceAuthorization, type AuthorizeInBrowserOptions, type DeviceAuthorizationStatus, type UseDeviceAuthorization } from './app-authorization.js';
export { createSignInNonce } from './sign-in-nonce.js';
export { handleAuthLink, parseAuthLink, type AuthLink, type AuthLinkResult } from './auth-link.js';
export { isTerminal, type AppStateLike, type SessionSnapshot, type SessionStatus } from './session-controller.js';
export type { BackoffOptions } from './backoff.js';
// The SDK's client and errors, so an app needs one import.
export { createGatehouse, GatehouseError, type AuthorizationClient, type DeviceAuthorization, type OauthTokens, isGatehouseError, memoryTokenStore, mfaChallengeOf, providerCallbackOf, type Gatehouse, type MfaChallenge, type SignInNonce, type TokenStore } from '@gatehouse/sdk';
