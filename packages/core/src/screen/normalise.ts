/**
 * The forms a text is screened in, so a disguise does not hide a phrase: Unicode-normalised
 * (NFKC), with invisible characters removed (zero-width spaces and joiners, bidi controls, soft
 * hyphens, variation selectors, tag characters, the combining grapheme joiner), diacritics
 * dropped from Latin, Greek and Cyrillic letters, lower case, whitespace collapsed. Words that
 * mix Latin with look-alike letters of another script are folded to Latin; the `skeleton`
 * folds every look-alike (and digits standing for letters), for the English rules only, and
 * `squashed` is the skeleton's letters alone, for phrases spelt out with gaps.
 */
import { latinSkeleton, mixesScripts } from './confusables.js';

/** The normalised forms of one text. */
export interface ScreenForms {
  /** Normalised, with mixed-script words folded to Latin. */
  plain: string;
  /** Every look-alike folded to Latin (for English patterns). */
  skeleton: string;
  /** The skeleton's letters only (for long phrases spelt out with gaps). */
  squashed: string;
}

const INVISIBLE =
  // eslint-disable-next-line no-misleading-character-class -- it lists joiners and variation selectors on purpose
  /[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\u{e0000}-\u{e007f}\u{e0100}-\u{e01ef}]/gu;
const MARKED = /([\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}])(\p{M}+)/gu;

/** `text` without the invisible characters a disguise slips into a word ("pass\u200bword"). */
export function withoutInvisible(text: string): string {
  return text.replace(INVISIBLE, '');
}

export function screenForms(text: string): ScreenForms {
  const cleaned = text
    .normalize('NFKC')
    .replace(INVISIBLE, '')
    .normalize('NFD')
    .replace(MARKED, (_, base: string) => base)
    .normalize('NFC')
    .toLowerCase()
    .replace(/[^\S\n]+/gu, ' ');
  const plain = cleaned.replace(/[\p{L}\p{M}\p{N}$@|]+/gu, (word) =>
    mixesScripts(word) ? latinSkeleton(word) : word,
  );
  const skeleton = latinSkeleton(plain);
  return { plain, skeleton, squashed: skeleton.replace(/[^a-z]+/g, '') };
}
