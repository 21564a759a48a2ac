/**
 * Characters that show nothing or silently reorder what follows: zero-width spaces and
 * joiners, bidi marks, embeddings, overrides and isolates (U+202E turns "exe.txt" into
 * "txt.exe" on screen), word joiners, invisible operators, variation selectors, fillers that
 * render as blanks, and Unicode tags (which can smuggle text a person never sees into an AI
 * agent's context). In a title, a handle, a name or a file name they make one string look like
 * another, so no display string keeps them. Isomorphic: the forms strip them too.
 */
const INVISIBLE_CLASS =
  "[\\u00AD\\u034F\\u061C\\u115F\\u1160\\u17B4\\u17B5\\u180B-\\u180F\\u200B-\\u200F" +
  "\\u202A-\\u202E\\u2060-\\u206F\\u3164\\uFE00-\\uFE0F\\uFEFF\\uFFA0\\uFFF9-\\uFFFB" +
  "\\u{1D173}-\\u{1D17A}\\u{E0000}-\\u{E0FFF}]";
const HAS_INVISIBLE = new RegExp(INVISIBLE_CLASS, "u");
const INVISIBLE = new RegExp(INVISIBLE_CLASS, "gu");

/**
 * The emoji that need some of those characters, kept whole: a zero-width joiner between two
 * pictographs (👩‍💻, 🏳️‍🌈), a presentation selector after a pictograph (❤️) or in a
 * keycap (1️⃣: digit, selector, enclosing keycap; a selector after a bare digit would make
 * "@22d491" and "@22d491\uFE0F" look alike), and a subdivision flag's tag sequence (🏴 + tag letters + cancel tag).
 */
const EMOJI_SEQUENCES =
  /(?<=\p{Extended_Pictographic}[\u{FE0F}\u{1F3FB}-\u{1F3FF}]?)\u200D(?=\p{Extended_Pictographic})|(?<=\p{Extended_Pictographic})[\uFE0E\uFE0F]|(?<=[0-9#*])\uFE0F(?=\u20E3)|\u{1F3F4}[\u{E0020}-\u{E007E}]{1,8}\u{E007F}/gu;

/** `value` without invisible or direction-changing characters, emoji sequences kept. */
export function stripInvisible(value: string): string {
  if (!HAS_INVISIBLE.test(value)) return value;
  let out = "";
  let from = 0;
  // Matched on the whole string, so each sequence sees what precedes it.
  for (const match of value.matchAll(EMOJI_SEQUENCES)) {
    out += value.slice(from, match.index).replace(INVISIBLE, "") + match[0];
    from = match.index + match[0].length;
  }
  return out + value.slice(from).replace(INVISIBLE, "");
}
