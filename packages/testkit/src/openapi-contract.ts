import { readFileSync } from 'node:fs';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import { parse } from 'yaml';

type Json = Record<string, any>;

export interface RecordedResponse {
  status: number;
  contentType: string | null;
  body: unknown;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete', 'options'] as const;

function pointer(...parts: string[]): string {
  return parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
}

/**
 * Checks live responses against a service's OpenAPI 3.1 document: the status must be documented
 * for the operation and a JSON body must match its schema (JSON Schema 2020-12, validated by ajv).
 * It also records which operations were exercised, so a test can demand all of them.
 */
export class OpenApiContract {
  readonly document: Json;
  private readonly ajv: Ajv2020;
  private readonly covered = new Set<string>();
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly templates: { method: string; template: string; regex: RegExp }[] = [];

  constructor(file: string) {
    this.document = parse(readFileSync(file, 'utf8')) as Json;
    this.ajv = new Ajv2020({ strict: false, validateSchema: false, allErrors: true, validateFormats: false });
    this.ajv.addSchema(this.document, 'openapi');
    for (const [template, item] of Object.entries<Json>(this.document.paths)) {
      const regex = new RegExp(
        `^${template
          .replace(/\/$/, '')
          .replace(/[.]/g, '\\.')
          .replace(/\{[^}]+\}/g, '[^/]+')}/?$`,
      );
      for (const method of METHODS) if (item[method]) this.templates.push({ method, template, regex });
    }
    // literal paths first, so /api/v3/campaign/x/ is not taken for /api/v3/{campaign_token}/{url_token}/
    this.templates.sort((a, b) => (a.template.match(/\{/g)?.length ?? 0) - (b.template.match(/\{/g)?.length ?? 0));
  }

  /** Every documented operation as `METHOD template`. */
  operations(): string[] {
    return this.templates.map((t) => `${t.method.toUpperCase()} ${t.template}`).sort();
  }

  uncovered(): string[] {
    return this.operations().filter((op) => !this.covered.has(op));
  }

  /** Returns the problems found (empty when the response honours the document). */
  check(method: string, urlPath: string, res: RecordedResponse): string[] {
    const pathOnly = urlPath.split('?')[0] ?? urlPath;
    const m = method.toLowerCase();
    const op = this.templates.find((t) => t.method === m && t.regex.test(pathOnly));
    if (!op) return [`${method} ${pathOnly} is not documented`];
    const name = `${m.toUpperCase()} ${op.template}`;
    this.covered.add(name);
    const responses = this.document.paths[op.template][m].responses as Json;
    const status = String(res.status);
    if (!responses[status])
      return [`${name}: status ${status} is not documented (documented: ${Object.keys(responses).join(', ')})`];
    let response = responses[status] as Json;
    let responsePointer = `#/${pointer('paths', op.template, m, 'responses', status)}`;
    if (response.$ref) {
      responsePointer = response.$ref as string;
      response = this.resolve(responsePointer);
    }
    const content = response.content as Json | undefined;
    if (!content)
      return res.body === undefined || res.body === '' ? [] : [`${name} ${status}: body sent but none documented`];
    const mediaType = (res.contentType ?? '').split(';')[0]?.trim() ?? '';
    if (!content[mediaType])
      return [
        `${name} ${status}: content type ${mediaType || '(none)'} not documented (${Object.keys(content).join(', ')})`,
      ];
    if (!mediaType.includes('json')) return [];
    const schemaRef = `openapi${responsePointer}/${pointer('content', mediaType, 'schema')}`;
    let validate = this.validators.get(schemaRef);
    if (!validate) {
      validate = this.ajv.compile({ $ref: schemaRef });
      this.validators.set(schemaRef, validate);
    }
    if (validate(res.body)) return [];
    return (validate.errors ?? []).map(
      (e) => `${name} ${status}: body${e.instancePath} ${e.message ?? ''} ${JSON.stringify(e.params)}`,
    );
  }

  private resolve(ref: string): Json {
    let node: any = this.document;
    for (const part of ref.replace(/^#\//, '').split('/')) node = node[part.replace(/~1/g, '/').replace(/~0/g, '~')];
    return node as Json;
  }
}
