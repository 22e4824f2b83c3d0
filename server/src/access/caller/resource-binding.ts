import type { AuthContext } from '../../http/route-config.js';
import { challenge, REALM } from '../../http/caller.js';
import { AppError } from '../../kernel/errors.js';

// Audience binding (RFC 8707): an app's token is for one resource, the REST API or the MCP
// endpoint, and is refused by the other; the MCP endpoint takes nothing else.

/** Why `auth` may not be used at a route of `resource` (undefined: it may). */
export function resourceRefusal(auth: AuthContext, resource: 'api' | 'mcp'): AppError | undefined {
  if (resource === 'mcp') {
    return auth.resource === 'mcp' ? undefined
      : challenge('invalid_token', "The MCP endpoint takes an app's token issued for it (the resource PUBLIC_URL/v1/mcp), not an API key or a login's token.");
  }
  return auth.resource === 'mcp'
    ? challenge('invalid_token', 'This token is bound to the MCP endpoint; ask for a token for the REST API (the resource PUBLIC_URL/v1).')
    : undefined;
}

/**
 * A 401 from the MCP endpoint names its protected resource metadata (RFC 9728 §5.1), where an MCP
 * client learns which authorization server to send the person to. Other refusals pass unchanged.
 */
export function withResourceMetadata(refusal: AppError, metadataUrl: string): AppError {
  const header = refusal.extra.headers?.['WWW-Authenticate'];
  if (refusal.status !== 401 || header === undefined || !header.startsWith(REALM)) return refusal;
  const headers = { ...refusal.extra.headers, 'WWW-Authenticate': `${REALM}, resource_metadata="${metadataUrl}"${header.slice(REALM.length)}` };
  return new AppError(refusal.code, refusal.message, { ...refusal.extra, headers });
}
