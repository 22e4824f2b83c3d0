/**
 * The platform's own "is this the phone's owner?" prompt (Face ID / Touch ID with the passcode
 * behind them on iOS, BiometricPrompt with the PIN or pattern behind it on Android), through
 * `expo-local-authentication`, an optional peer dependency. Its answer is turned into what the
 * biometric lock needs: opened, or one of three GatehouseErrors an app can branch on.
 */
import { GatehouseError } from '@gatehouse/sdk';

/**
 * expo-local-authentication's options for `authenticateAsync`, as the package passes them on
 * (declared here, so the package's types do not need the optional peer installed).
 */
export interface BiometricPromptOptions {
  /** The reason shown in the prompt (iOS: under Face ID / Touch ID). Default `Unlock`. */
  promptMessage?: string;
  cancelLabel?: string;
  /** iOS: the label of the passcode button after failed attempts; `''` hides it. */
  fallbackLabel?: string;
  /** Biometrics only, no device passcode / PIN after failed attempts. Default false. */
  disableDeviceFallback?: boolean;
  /** Android: `weak` (the default) also takes camera face unlock; `strong` only Class 3. */
  biometricsSecurityLevel?: 'weak' | 'strong';
  /** Android. */
  promptSubtitle?: string;
  /** Android. */
  promptDescription?: string;
  /** Android. */
  requireConfirmation?: boolean;
}

/** The part of expo-local-authentication the lock uses (its module, or a stand-in). */
export interface LocalAuthenticationLike {
  authenticateAsync(options?: BiometricPromptOptions): Promise<{ success: true } | { success: false; error: string; warning?: string }>;
}

export function loadLocalAuthentication(): LocalAuthenticationLike {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require('expo-local-authentication') as LocalAuthenticationLike;
  } catch {
    throw new Error('biometricLock needs expo-local-authentication: npx expo install expo-local-authentication, then rebuild the app (or pass localAuthentication)');
  }
}

/**
 * What the platform says when it cannot ask at all: no sensor, nothing enrolled and no passcode
 * (iOS `passcode_not_set`, Android `not_enrolled` when the device has no screen lock), or Face ID
 * without `NSFaceIDUsageDescription` when the device passcode is not allowed either.
 */
const UNAVAILABLE = new Set(['not_available', 'not_enrolled', 'passcode_not_set', 'missing_usage_description']);
/** Closed by the person, or by the system (a call came in, the app went to the background). */
const CANCELLED = new Set(['user_cancel', 'system_cancel', 'app_cancel']);

/**
 * Asks once. Resolves null when the session may open, else with the reason it stays locked:
 * `biometric_unavailable`, `biometric_cancelled`, or `biometric_failed` (too many attempts
 * (`lockout`), "use password" pressed, anything else); `detail` holds the platform's own code.
 * `whenUnavailable: 'unlock'` opens without a prompt on a phone that cannot ask.
 */
export async function askToUnlock(localAuthentication: LocalAuthenticationLike, prompt: BiometricPromptOptions, whenUnavailable: 'stay-locked' | 'unlock'): Promise<GatehouseError | null> {
  let result: Awaited<ReturnType<LocalAuthenticationLike['authenticateAsync']>>;
  try {
    result = await localAuthentication.authenticateAsync({ promptMessage: 'Unlock', ...prompt });
  } catch (error) {
    // The native module missing from this build (added to package.json without a rebuild), say.
    return new GatehouseError({ code: 'biometric_failed', status: 0, detail: `The unlock prompt could not be shown: ${String(error)}`, cause: error });
  }
  if (result.success) return null;
  const reason = result.error.split(':')[0]!; // iOS reports unknown errors as "unknown: <code>, <text>"
  if (UNAVAILABLE.has(reason)) {
    if (whenUnavailable === 'unlock') return null;
    return new GatehouseError({ code: 'biometric_unavailable', status: 0, detail: `This device cannot confirm its owner (${result.error}).` });
  }
  if (CANCELLED.has(reason)) return new GatehouseError({ code: 'biometric_cancelled', status: 0, detail: `The unlock prompt was closed (${result.error}).` });
  return new GatehouseError({ code: 'biometric_failed', status: 0, detail: `The unlock did not succeed (${result.error}).` });
}
