/**
 * A tokenizer-free estimate of how many tokens a text costs a model: 0.75 per CJK character
 * and 1 per 3.7 other characters, rounded up. Calibrated against OpenAI's o200k tokenizer:
 * within ±10% on synthesized tool sets (JSON) and short Chinese text; plain English prose
 * comes out up to 25% high.
 */
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu;

export function estimateTokens(text: string): number {
  const cjk = text.match(CJK)?.length ?? 0;
  const rest = [...text].length - cjk;
  return Math.ceil(cjk * 0.75 + rest / 3.7);
}
