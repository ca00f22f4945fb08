/**
 * Is an operator token (ADMIN_TOKEN) fit for production? A token guards account creation and
 * API keys, so a shipped placeholder or a human-made phrase must stop the process at start.
 * The entropy figure is an estimate from the token itself (we cannot know how it was made):
 * the lower of the character-pool bound and the Shannon bound of its characters.
 */

const MIN_OPERATOR_TOKEN_LENGTH = 32;
/** `openssl rand -hex 32` estimates ~240 bits, `openssl rand -hex 16` ~115, an English phrase far less per character. */
export const MIN_OPERATOR_TOKEN_BITS = 100;
export const OPERATOR_TOKEN_ADVICE = 'Generate one with `openssl rand -hex 32`';

/** Words that mark a placeholder or a made-up token (compared without case and separators). */
// five letters or more, so that a random token contains one with negligible probability (< 1e-5)
const PLACEHOLDER_WORDS = [
  'changeme',
  'replaceme',
  'placeholder',
  'example',
  'sample',
  'dummy',
  'default',
  'insecure',
  'secret',
  'password',
  'passw0rd',
  'admin',
  'token',
  'operator',
  'compose',
  'local',
  'fixme',
  'xxxxx',
];

function poolSize(token: string): number {
  let pool = 0;
  if (/[a-z]/.test(token)) pool += 26;
  if (/[A-Z]/.test(token)) pool += 26;
  if (/[0-9]/.test(token)) pool += 10;
  if (/[^A-Za-z0-9]/.test(token)) pool += 33;
  return pool;
}

function shannonBitsPerChar(token: string): number {
  const counts = new Map<string, number>();
  for (const ch of token) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / token.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/** About what one word drawn from a large word list is worth (a diceware word: 12.9 bits). */
const BITS_PER_WORD = 13;

/**
 * Letter runs that read like words: camelCase split, 3+ letters, a vowel, no four consonants in
 * a row, a natural share of vowels. Random characters rarely form them.
 */
function wordLikeParts(token: string): string[] {
  const parts = token.match(/[A-Z]?[a-z]+|[A-Z]+(?![a-z])/g) ?? [];
  return parts.filter((part) => {
    const w = part.toLowerCase();
    const vowels = (w.match(/[aeiouy]/g) ?? []).length;
    return (
      w.length >= 3 && vowels > 0 && !/[^aeiouy]{4}/.test(w) && vowels / w.length >= 0.2 && vowels / w.length <= 0.6
    );
  });
}

/**
 * Estimated bits of randomness: the lowest of the character-pool bound (length x log2(pool)),
 * the Shannon bound (length x entropy per character) and a word-aware bound (each word-like run
 * counts as one word drawn from a list, the other characters at the Shannon rate) when the
 * token is mostly words.
 */
export function estimateTokenBits(token: string): number {
  if (token.length === 0) return 0;
  const perChar = shannonBitsPerChar(token);
  const bounds = [token.length * Math.log2(poolSize(token)), token.length * perChar];
  const words = readsLikeWords(token);
  if (words) bounds.push(words.length * BITS_PER_WORD + (token.length - words.join('').length) * perChar);
  return Math.min(...bounds);
}

/** The word-like parts when they make up most of the token (random characters rarely do), else undefined. */
function readsLikeWords(token: string): string[] | undefined {
  // hex has only the letters a-f: its "words" are noise
  if (/^[0-9a-f]+$/i.test(token)) return undefined;
  const words = wordLikeParts(token);
  return words.join('').length >= 0.6 * token.length ? words : undefined;
}

/**
 * Runs of 8+ of one character, or 8+ consecutive ascending/descending characters (00000000,
 * 12345678). Shorter runs occur in random hex too often (4: in ~4 % of 64-character tokens).
 */
const RUN = 8;

function hasRun(token: string): boolean {
  let same = 1;
  let up = 1;
  let down = 1;
  for (let i = 1; i < token.length; i++) {
    const d = token.charCodeAt(i) - token.charCodeAt(i - 1);
    same = d === 0 ? same + 1 : 1;
    up = d === 1 ? up + 1 : 1;
    down = d === -1 ? down + 1 : 1;
    if (same >= RUN || up >= RUN || down >= RUN) return true;
  }
  return false;
}

/** The whole token is a short pattern repeated (abcabcabc...). */
function isRepetition(token: string): boolean {
  for (let period = 1; period <= token.length / 2; period++) {
    if (token.length % period === 0 && token.slice(0, period).repeat(token.length / period) === token) return true;
  }
  return false;
}

/** Every reason the token is unfit for production; empty when it is fine. */
export function operatorTokenProblems(token: string): string[] {
  const problems: string[] = [];
  if (token.length < MIN_OPERATOR_TOKEN_LENGTH)
    problems.push(`it has ${token.length} characters, at least ${MIN_OPERATOR_TOKEN_LENGTH} are required`);
  const folded = token.toLowerCase().replace(/[^a-z0-9]/g, '');
  const word = PLACEHOLDER_WORDS.find((w) => folded.includes(w));
  if (word) problems.push(`it contains "${word}", which marks a placeholder or a made-up token`);
  if (isRepetition(token)) problems.push('it is one short pattern repeated');
  else if (hasRun(token)) problems.push('it contains a run of repeated or consecutive characters');
  const bits = estimateTokenBits(token);
  if (bits < MIN_OPERATOR_TOKEN_BITS) {
    const words = readsLikeWords(token);
    const why = words ? ` (it reads like words: ${words.slice(0, 4).join(', ')})` : '';
    problems.push(
      `its estimated entropy is ${Math.floor(bits)} bits${why}, at least ${MIN_OPERATOR_TOKEN_BITS} are required`,
    );
  }
  return problems;
}
