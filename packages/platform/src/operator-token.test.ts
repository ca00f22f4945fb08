import { randomBytes } from 'node:crypto';
import { MIN_OPERATOR_TOKEN_BITS, estimateTokenBits, operatorTokenProblems } from './operator-token';

describe('operatorTokenProblems', () => {
  test.each([
    ['openssl rand -hex 32', () => randomBytes(32).toString('hex')],
    ['openssl rand -base64 32', () => randomBytes(32).toString('base64')],
    ['32 random bytes, base64url', () => randomBytes(32).toString('base64url')],
  ])('when the token is made like %s, then 1000 of them are all accepted', (_how, make) => {
    const refused = Array.from({ length: 1000 }, make).filter((t) => operatorTokenProblems(t).length > 0);
    expect(refused).toEqual([]);
  });

  test.each([
    ['the old compose default', 'local-compose-admin-token-change-me', /"changeme"/],
    ['the Kubernetes placeholder', 'REPLACE_ME-operator-token-0000000000', /"replaceme"/],
    ['a placeholder word in random text', `x${randomBytes(24).toString('hex')}placeholder`, /"placeholder"/],
    ['too short', randomBytes(12).toString('hex'), /24 characters, at least 32/],
    ['one character repeated', 'a'.repeat(48), /short pattern repeated/],
    ['a short pattern repeated', 'aB3$'.repeat(10), /short pattern repeated/],
    ['a long run of zeros', `${randomBytes(16).toString('hex')}00000000`, /run of repeated or consecutive/],
    ['a counting sequence', `Qw9z${'abcdefghijklmnopqrstuvwxyz'}7Kp2`, /run of repeated or consecutive/],
    ['a phrase of words', 'correct-horse-battery-staple-xyzq', /reads like words/],
    ['camel-case words', 'CorrectHorseBatteryStapleWordsAreBad', /reads like words/],
    ['few distinct characters', 'abababababbababababbabababababaab', /estimated entropy/],
  ])('when the token is %s, then it is refused with the reason', (_what, token, reason) => {
    const problems = operatorTokenProblems(token);
    expect(problems.join('; ')).toMatch(reason);
  });
});

describe('estimateTokenBits', () => {
  test.each(['', 'a'.repeat(40)])(
    'when the token is "%s" (one symbol at most), then the estimate is 0 bits',
    (token) => {
      expect(estimateTokenBits(token)).toBe(0);
    },
  );

  test('when the token is four words, then the estimate counts words, not letters', () => {
    const bits = estimateTokenBits('correct-horse-battery-staple-xyzq');
    expect(bits).toBeGreaterThan(40);
    expect(bits).toBeLessThan(MIN_OPERATOR_TOKEN_BITS);
  });

  test('when the token is 64 random hex characters, then the estimate is far above the minimum', () => {
    expect(estimateTokenBits(randomBytes(32).toString('hex'))).toBeGreaterThan(MIN_OPERATOR_TOKEN_BITS * 1.5);
  });
});
