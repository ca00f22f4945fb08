#!/usr/bin/env node
// Validates every OpenAPI document in docs/api against the official OpenAPI 3.1 schema and checks
// that every $ref resolves.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Validator } from '@seriousme/openapi-schema-validator';
import YAML from 'yaml';

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'api');
let failed = 0;
for (const file of readdirSync(dir).filter((f) => f.endsWith('.openapi.yaml'))) {
  const doc = YAML.parse(readFileSync(path.join(dir, file), 'utf8'));
  const validator = new Validator();
  const result = await validator.validate(doc);
  // validate() checks the document against the OpenAPI 3.1 schema and resolves every $ref
  const problems = result.valid ? [] : [].concat(result.errors);
  if (problems.length > 0) {
    failed += 1;
    console.error(`FAIL ${file}:\n  ${problems.map((p) => (typeof p === 'string' ? p : `${p.instancePath ?? ''} ${p.message}`)).join('\n  ')}`);
  } else {
    console.log(`ok   ${file}: ${doc.info.title} ${doc.info.version} (OpenAPI ${doc.openapi}), ${Object.keys(doc.paths).length} paths`);
  }
}
process.exit(failed ? 1 : 0);
