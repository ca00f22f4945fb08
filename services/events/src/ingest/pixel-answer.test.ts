import { ValidationError } from '@cm/platform';
import { decidePixelAnswer } from './pixel-answer';
import type { PixelOutcome } from './pixel-ingest';

const invalid = new ValidationError('invalid event parameters', [{ field: 'name', message: 'name is required' }]);
const R = 'https://shop.example/offer';

/** Every event outcome, once without and once with an allowed `r`. */
const eventOutcomes = (redirect: string | undefined): [string, PixelOutcome][] => [
  ['stored', { kind: 'stored', id: 'e1', bot: false, redirect }],
  ['stored by a bot', { kind: 'stored', id: 'e1', bot: true, redirect }],
  ['unknown owner', { kind: 'unknown_owner', redirect }],
  ['rate limited per client', { kind: 'rate_limited', scope: 'ip', redirect }],
  ['rate limited per owner', { kind: 'rate_limited', scope: 'owner', redirect }],
  ['invalid', { kind: 'invalid', error: invalid, redirect }],
  ['unavailable', { kind: 'unavailable', reason: 'broker disconnected', redirect }],
];

const statusOf = (outcome: PixelOutcome): number => {
  const answer = decidePixelAnswer(outcome);
  return answer.kind === 'gif' ? 200 : answer.kind === 'redirect' ? 302 : answer.error.status;
};

describe('the pixel answer table', () => {
  const withoutR = eventOutcomes(undefined);
  const expected = [200, 200, 200, 200, 200, 400, 503];
  test.each(withoutR.map(([name, outcome], i) => [name, expected[i]!, outcome] as const))(
    'when the hit has no r and the event is %s, then the answer is a %i',
    (_name, status, outcome) => {
      expect(statusOf(outcome)).toBe(status);
    },
  );

  test.each(eventOutcomes(R))(
    'when r is allowed and the event is %s, then the answer is a 302 to r',
    (_name, outcome) => {
      expect(decidePixelAnswer(outcome)).toEqual({ kind: 'redirect', location: R });
    },
  );

  test('when r is refused, then the answer is a 400 naming r with the refusal, and no redirect', () => {
    const answer = decidePixelAnswer({ kind: 'bad_redirect', message: 'r must be given once' });
    expect(answer).toMatchObject({ kind: 'error', headers: [] });
    if (answer.kind !== 'error') throw new Error('not an error answer');
    expect(answer.error.status).toBe(400);
    expect(answer.error).toBeInstanceOf(ValidationError);
    expect((answer.error as ValidationError).details).toEqual([{ field: 'r', message: 'r must be given once' }]);
  });

  test('when r cannot be decided because the owner registry is loading, then the answer is a 503 saying so, retry after 1 s', () => {
    const answer = decidePixelAnswer({ kind: 'registry_loading' });
    expect(answer).toMatchObject({ kind: 'error', headers: ['Retry-After', '1'] });
    if (answer.kind === 'error')
      expect(answer.error).toMatchObject({ status: 503, message: 'the owner registry is still loading, try again' });
  });

  test('when the event is invalid, then the 400 carries the validation error naming the fields', () => {
    expect(decidePixelAnswer({ kind: 'invalid', error: invalid, redirect: undefined })).toEqual({
      kind: 'error',
      error: invalid,
      headers: [],
    });
  });

  test('when the event could not be stored, then the answer is a 503 asking to try again after 1 s', () => {
    const answer = decidePixelAnswer({ kind: 'unavailable', reason: 'not acknowledged', redirect: undefined });
    expect(answer).toMatchObject({ kind: 'error', headers: ['Retry-After', '1'] });
    if (answer.kind === 'error')
      expect(answer.error).toMatchObject({ status: 503, message: 'event could not be stored, try again' });
  });
});
