/**
 * Recall tokenizer for English and CJK text. Latin text: camelCase and `_`/punctuation split,
 * lower-cased, letters and digits separated (`order12345` → order, 12345), a few function
 * words dropped, plurals lightly stemmed (orders → order, categories → category). CJK text
 * (Han, Kana, Hangul): character unigrams and bigrams, broken at common particles (的, 为, …).
 */

const CJK = '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}';
const RUN = new RegExp(`[${CJK}]+|(?:(?![${CJK}])\\p{L})+|\\p{N}+`, 'gu');
const IS_CJK = new RegExp(`^[${CJK}]`, 'u');

const STOP_WORDS = new Set([
  'a',
  'an',
  'and',
  'are',
  'as',
  'at',
  'be',
  'by',
  'for',
  'from',
  'in',
  'is',
  'it',
  'of',
  'on',
  'or',
  'that',
  'the',
  'this',
  'to',
  'with',
]);
/** CJK particles that separate words rather than carry meaning. */
const CJK_BREAKS = /[的了是为在和与及或把被个]/u;

/**
 * Words that ask for something rather than name it ("find", "show me", 搜索, 查询): every
 * recall query is a request, so they say nothing about which resource is wanted.
 */
const REQUEST_WORDS = new Set([
  'find',
  'search',
  'show',
  'list',
  'get',
  'fetch',
  'look',
  'lookup',
  'give',
  'me',
  'please',
  'all',
  'any',
  'i',
  'want',
  'need',
]);
const CJK_REQUESTS = /搜索|查找|查询|查看|显示|列出|获取|找出|找到|帮我|给我|请/gu;

/**
 * The terms of a recall query: `tokenize` without request words, unless nothing else is left
 * (a query of only "search" still matches a resource about searches).
 */
export function queryTerms(query: string): string[] {
  const terms = tokenize(query.replace(CJK_REQUESTS, ' ')).filter((t) => !REQUEST_WORDS.has(t));
  return terms.length > 0 ? terms : tokenize(query);
}

/** The recall terms of `text`, in order, with repeats. */
export function tokenize(text: string): string[] {
  const spaced = text
    .normalize('NFKC')
    .replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2')
    .toLowerCase();
  const terms: string[] = [];
  for (const [run] of spaced.matchAll(RUN)) {
    if (IS_CJK.test(run)) {
      for (const part of run.split(CJK_BREAKS)) pushCjk(part, terms);
    } else if (!STOP_WORDS.has(run)) {
      terms.push(/^\p{N}/u.test(run) ? run : stem(run));
    }
  }
  return terms;
}

function pushCjk(run: string, terms: string[]): void {
  const chars = [...run];
  chars.forEach((char, i) => {
    terms.push(char);
    const next = chars[i + 1];
    if (next !== undefined) terms.push(char + next);
  });
}

/** Harman's S-stemmer: plural endings only, so stems stay readable words. */
export function stem(word: string): string {
  if (word.length > 4 && word.endsWith('ies') && !/[ae]ies$/.test(word))
    return `${word.slice(0, -3)}y`;
  if (word.length > 3 && word.endsWith('es') && !/[aeo]es$/.test(word)) return word.slice(0, -1);
  if (word.length > 3 && word.endsWith('s') && !/[us]s$/.test(word)) return word.slice(0, -1);
  return word;
}
