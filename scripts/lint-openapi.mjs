#!/usr/bin/env node
// Validates every service's OpenAPI document (services/*/openapi.yaml) against the official OpenAPI 3.1 schema and checks
// that every $ref resolves.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Validator } from '@seriousme/openapi-schema-validator';
import YAML from 'yaml';

const services = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'services');
const files = readdirSync(services)
  .map((svc) => path.join(services, svc, 'openapi.yaml'))
  .filter((f) => existsSync(f));
let failed = 0;
if (files.length === 0) {
  console.error('no OpenAPI documents found under services/*/openapi.yaml');
  process.exit(1);
}
for (const abs of files) {
  const file = path.relative(path.join(services, '..'), abs);
  const doc = YAML.parse(readFileSync(abs, 'utf8'));
  const validator = new Validator();
  const result = await validator.validate(doc);
  // validate() checks the document against the OpenAPI 3.1 schema and resolves every $ref
  const problems = result.valid ? [] : [].concat(result.errors);
  if (problems.length > 0) {
    failed += 1;
    console.error(
      `FAIL ${file}:\n  ${problems.map((p) => (typeof p === 'string' ? p : `${p.instancePath ?? ''} ${p.message}`)).join('\n  ')}`,
    );
  } else {
    console.log(
      `ok   ${file}: ${doc.info.title} ${doc.info.version} (OpenAPI ${doc.openapi}), ${Object.keys(doc.paths).length} paths`,
    );
  }
}
process.exit(failed ? 1 : 0);
