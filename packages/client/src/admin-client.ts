import { resolveTransportConfig, segment, type ClientOptions, type RequestOptions } from './client-options';
import { HttpTransport, type CallSpec } from './http-transport';
import type { ApiKey, CreateApiKeyInput, IssuedApiKey } from './events-types';
import type { CreateUserInput, TokenRekeyResult, User } from './management-types';

export interface AdminClientOptions extends ClientOptions {
  /** The management service's address; needed for createAccount. */
  managementUrl?: string;
  /** The events service's address; needed for the API key calls. */
  eventsUrl?: string;
  /** The operator token (ADMIN_TOKEN of the services). */
  adminToken: string;
}

/** The operator's endpoints (/admin/v1/) on both services. */
export class AdminClient {
  private readonly management: HttpTransport | undefined;
  private readonly events: HttpTransport | undefined;
  private readonly adminToken: string;

  constructor(options: AdminClientOptions) {
    if (typeof options.adminToken !== 'string' || options.adminToken === '')
      throw new TypeError('adminToken is required');
    if (options.managementUrl === undefined && options.eventsUrl === undefined)
      throw new TypeError('give managementUrl, eventsUrl or both');
    this.management =
      options.managementUrl === undefined
        ? undefined
        : new HttpTransport(resolveTransportConfig(options.managementUrl, options, 'managementUrl'));
    this.events =
      options.eventsUrl === undefined
        ? undefined
        : new HttpTransport(resolveTransportConfig(options.eventsUrl, options, 'eventsUrl'));
    this.adminToken = options.adminToken;
  }

  /** A new account owner (with its api_token). 409 when the e-mail is taken. Sent once. */
  createAccount(input: CreateUserInput, options?: RequestOptions): Promise<User> {
    return this.call(
      this.management,
      'managementUrl',
      { method: 'POST', path: '/admin/v1/accounts', body: input, idempotent: false },
      options,
    );
  }

  /**
   * Brings every stored api_token to the current TOKEN_ENCRYPTION_KEYS / TOKEN_LOOKUP_KEY now; during
   * a key rotation, remove the old key only once `remaining` is 0. Safe to repeat.
   */
  rekeyTokens(options?: RequestOptions): Promise<TokenRekeyResult> {
    return this.call(
      this.management,
      'managementUrl',
      { method: 'POST', path: '/admin/v1/tokens/rekey', idempotent: true },
      options,
    );
  }

  /** One reconciliation pass of the owner and campaign registries now (management also runs them periodically); how many keys each corrected. */
  reconcileRegistry(options?: RequestOptions): Promise<{ corrections: number; campaign_corrections: number }> {
    return this.call(
      this.management,
      'managementUrl',
      { method: 'POST', path: '/admin/v1/registry/reconcile', idempotent: true },
      options,
    );
  }

  /** A reporting key scoped to these owner ids. `api_key` is in this answer only. Sent once. */
  createApiKey(input: CreateApiKeyInput, options?: RequestOptions): Promise<IssuedApiKey> {
    return this.call(
      this.events,
      'eventsUrl',
      { method: 'POST', path: '/admin/v1/api-keys', body: input, idempotent: false },
      options,
    );
  }

  /** Every key (never the secret). */
  listApiKeys(options?: RequestOptions): Promise<ApiKey[]> {
    return this.call(
      this.events,
      'eventsUrl',
      { method: 'GET', path: '/admin/v1/api-keys', idempotent: true },
      options,
    );
  }

  revokeApiKey(id: string, options?: RequestOptions): Promise<void> {
    const spec: Omit<CallSpec, 'bearer'> = {
      method: 'DELETE',
      path: `/admin/v1/api-keys/${segment(id, 'id')}`,
      idempotent: true,
      goneIsDone: true,
    };
    return this.call(this.events, 'eventsUrl', spec, options);
  }

  private call<T>(
    transport: HttpTransport | undefined,
    needs: string,
    spec: Omit<CallSpec, 'bearer'>,
    options: RequestOptions | undefined,
  ): Promise<T> {
    if (!transport) return Promise.reject(new TypeError(`AdminClient was created without ${needs}`));
    return transport.call<T>({ ...spec, bearer: this.adminToken }, options);
  }
}
