#!/usr/bin/env node
// Validates every OpenAPI document in docs/api against the OpenAPI 3.1 schema and resolves all $refs.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const SwaggerParser = require('@apidevtools/swagger-parser');
const yaml = require('js-yaml');

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'api');
let failed = 0;
for (const file of readdirSync(dir).filter((f) => f.endsWith('.openapi.yaml'))) {
  try {
    const api = await SwaggerParser.validate(yaml.load(readFileSync(path.join(dir, file), 'utf8')));
    console.log(`ok   ${file}: ${api.info.title} ${api.info.version}, ${Object.keys(api.paths).length} paths`);
  } catch (err) {
    failed += 1;
    console.error(`FAIL ${file}: ${err.message}`);
  }
}
process.exit(failed ? 1 : 0);
