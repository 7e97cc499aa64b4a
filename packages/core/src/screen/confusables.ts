/**
 * Characters that look like Latin letters (and digits standing in for letters), mapped to the
 * letter they imitate: a reduced form of Unicode's confusables data (UTS #39) for the scripts
 * used to disguise English instructions — Cyrillic, Greek, Armenian, Cherokee and a few symbols.
 * NFKC already folds fullwidth and mathematical letters, so they are not listed here.
 */
const LOOKALIKES: Record<string, string> = {
  // Cyrillic
  а: 'a',
  в: 'b',
  с: 'c',
  е: 'e',
  ё: 'e',
  һ: 'h',
  і: 'i',
  ї: 'i',
  ј: 'j',
  к: 'k',
  м: 'm',
  н: 'h',
  о: 'o',
  р: 'p',
  ԛ: 'q',
  г: 'r',
  ѕ: 's',
  т: 't',
  у: 'y',
  х: 'x',
  ѡ: 'w',
  ԝ: 'w',
  ү: 'y',
  ӏ: 'l',
  ԁ: 'd',
  ɡ: 'g',
  ո: 'n',
  ս: 'u',
  ʏ: 'y',
  ь: 'b',
  п: 'n',
  и: 'u',
  л: 'n',
  // Greek
  α: 'a',
  β: 'b',
  ε: 'e',
  η: 'n',
  ι: 'i',
  κ: 'k',
  ν: 'v',
  ο: 'o',
  ρ: 'p',
  τ: 't',
  υ: 'u',
  χ: 'x',
  γ: 'y',
  ω: 'w',
  ϲ: 'c',
  ϳ: 'j',
  ς: 's',
  μ: 'u',
  // Armenian, Cherokee, Latin extensions and symbols
  օ: 'o',
  ց: 'g',
  հ: 'h',
  ք: 'p',
  ɑ: 'a',
  ɩ: 'i',
  ı: 'i',
  ȷ: 'j',
  ℓ: 'l',
  ſ: 's',
  ꭰ: 'd',
  ꮃ: 'w',
  ꮪ: 's',
  ꭼ: 'e',
  '0': 'o',
  '1': 'i',
  '3': 'e',
  '4': 'a',
  '5': 's',
  '7': 't',
  '@': 'a',
  $: 's',
  '|': 'l',
};

/** `text` (lower case) with every look-alike replaced by the Latin letter it imitates. */
export function latinSkeleton(text: string): string {
  let out = '';
  for (const char of text) out += LOOKALIKES[char] ?? char;
  return out;
}

/** True when a word mixes Latin letters with letters of another script (a typical disguise). */
export function mixesScripts(word: string): boolean {
  return (
    /\p{Script=Latin}/u.test(word) &&
    /[\p{Script=Cyrillic}\p{Script=Greek}\p{Script=Armenian}\p{Script=Cherokee}]/u.test(word)
  );
}
