import path from 'node:path';
import { OpenApiContract } from './openapi-contract';

const doc = path.join(__dirname, '..', '..', '..', 'services', 'management', 'openapi.yaml');

describe('OpenApiContract', () => {
  test('when a body lacks required fields, then each one is reported', () => {
    const c = new OpenApiContract(doc);
    const problems = c.check('GET', '/api/v3/campaign/', {
      status: 200,
      contentType: 'application/json',
      body: [{ name: 'x' }],
    });
    expect(problems.join('\n')).toMatch(/required property 'token'/);
  });

  test('when a status is not documented, then it is reported', () => {
    const c = new OpenApiContract(doc);
    expect(
      c.check('GET', '/api/v3/campaign/abc/', { status: 418, contentType: 'application/json', body: {} })[0],
    ).toMatch(/status 418 is not documented/);
  });

  test('when an error body uses an unknown code, then it is reported', () => {
    const c = new OpenApiContract(doc);
    expect(
      c.check('GET', '/api/v3/campaign/abc/', {
        status: 404,
        contentType: 'application/json',
        body: { error: { code: 'nope', message: 'x' } },
      }),
    ).toHaveLength(1);
  });

  test('when a literal path and a templated one both match, then the literal one wins', () => {
    const c = new OpenApiContract(doc);
    c.check('GET', '/api/v3/campaign/', { status: 200, contentType: 'application/json', body: [] });
    expect(c.uncovered()).not.toContain('GET /api/v3/campaign/');
  });

  test('when nothing was called, then every operation is uncovered', () => {
    const c = new OpenApiContract(doc);
    expect(c.uncovered()).toEqual(c.operations());
    expect(c.operations().length).toBeGreaterThan(10);
  });
});
