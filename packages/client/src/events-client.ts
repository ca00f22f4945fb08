import { resolveTransportConfig, type ClientOptions, type RequestOptions } from './client-options';
import type { PixelParams, ReportQuery, ReportRow } from './events-types';
import { HttpTransport } from './http-transport';
import { buildClickUrl, buildPixelUrl } from './pixel-urls';

export interface EventsClientOptions extends ClientOptions {
  /** The Events API's address ({events_url}), e.g. "https://events.example.com". */
  baseUrl: string;
  /** The reporting key from the operator; only report() needs it. Keep it out of browser code. */
  apiKey?: string;
}

/** Reports (POST /api/v1/events/) and pixel URLs for the Events API. */
export class EventsClient {
  private readonly transport: HttpTransport;
  private readonly baseUrl: string;
  private readonly apiKey: string | undefined;

  constructor(options: EventsClientOptions) {
    const config = resolveTransportConfig(options.baseUrl, options, 'baseUrl');
    this.transport = new HttpTransport(config);
    this.baseUrl = config.baseUrl;
    this.apiKey = options.apiKey;
  }

  /**
   * Aggregated counts, sorted by name then the group fields. Read-only, so it is retried like a
   * GET. The key travels as the `api_key` query parameter, as the Events API requires.
   */
  report(query: ReportQuery, options?: RequestOptions): Promise<ReportRow[]> {
    if (!this.apiKey) return Promise.reject(new TypeError('EventsClient was created without apiKey'));
    return this.transport.call(
      { method: 'POST', path: '/api/v1/events/', query: { api_key: this.apiKey }, body: query, idempotent: true },
      options,
    );
  }

  /** The pixel URL for one event (for an <img>, sendBeacon or a server-side GET). No I/O. */
  pixelUrl(params: PixelParams): string {
    return buildPixelUrl(this.baseUrl, params);
  }

  /** A link that records the event and then sends the reader to `target` (302). No I/O. */
  clickUrl(params: PixelParams, target: string): string {
    return buildClickUrl(this.baseUrl, params, target);
  }
}
