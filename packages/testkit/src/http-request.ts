export interface HttpResult<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

interface RequestOptions {
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** An object is sent as JSON; a string is sent as is with `contentType`. */
  body?: unknown;
  contentType?: string;
  headers?: Record<string, string>;
}

export type TestRequest = <T = any>(method: string, path: string, opts?: RequestOptions) => Promise<HttpResult<T>>;

/** A request function bound to a service's base URL that parses JSON answers (and keeps other text as is). */
export function httpRequester(baseUrl: string): TestRequest {
  return async (method, path, opts = {}) => {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    let body: string | undefined;
    if (opts.body !== undefined) {
      body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
      headers['content-type'] = opts.contentType ?? 'application/json';
    }
    const res = await fetch(baseUrl + path, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON: keep the text so a test can assert on it */
    }
    return { status: res.status, body: parsed as any, headers: res.headers };
  };
}

/** Problems with a service's `/docs` page: every asset it references must be served locally, no absolute URL. */
export async function docsPageProblems(baseUrl: string): Promise<string[]> {
  const problems: string[] = [];
  const page = await fetch(`${baseUrl}/docs`);
  const html = await page.text();
  if (page.status !== 200) problems.push(`/docs answered ${page.status}`);
  if (/https?:\/\//.test(html)) problems.push('/docs references an absolute URL');
  const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
  if (assets.length === 0) problems.push('/docs references no assets');
  for (const asset of assets) {
    const res = await fetch(`${baseUrl}${asset}`);
    if (res.status !== 200) problems.push(`${asset} answered ${res.status}`);
  }
  return problems;
}
