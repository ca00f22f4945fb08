import { resolveTransportConfig, type ClientOptions, type RequestOptions } from './client-options';
import type { CampaignScorecard, PixelParams, ReportQuery, ReportRow, ScorecardQuery } from './events-types';
import { HttpTransport } from './http-transport';
import { buildClickUrl, buildPixelUrl } from './pixel-urls';

export interface EventsClientOptions extends ClientOptions {
  /** The Events API's address ({events_url}), e.g. "https://events.example.com". */
  baseUrl: string;
  /** The reporting key from the operator; only report() and campaignScorecard() need it. Keep it out of browser code. */
  apiKey?: string;
}

/** Reports (POST /api/v1/events/), campaign scorecards and pixel URLs for the Events API. */
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

  /**
   * A campaign's scorecard (`POST /api/v1/events/scorecard/`): impressions, clicks, reach and
   * frequency, engaged time, goal progress, pacing per flight day and on-target delivery, from
   * one read of the campaign's URLs over its flight so far. Read-only: retried like a GET.
   */
  campaignScorecard(query: ScorecardQuery, options?: RequestOptions): Promise<CampaignScorecard> {
    if (!this.apiKey) return Promise.reject(new TypeError('EventsClient was created without apiKey'));
    return this.transport.call(
      {
        method: 'POST',
        path: '/api/v1/events/scorecard/',
        query: { api_key: this.apiKey },
        body: query,
        idempotent: true,
      },
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
