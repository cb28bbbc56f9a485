// kimi.mjs writes ../tiny-kimi, a small tokenizer in the layout of
// Moonshot's Kimi K2.5 repo (which ships no tokenizer.json):
//
//   ../tiny-kimi/tiktoken.model         tiktoken BPE ranks: one line per
//                                       token, its bytes in base64, a
//                                       space, its rank (tiktoken's
//                                       load_tiktoken_bpe format)
//   ../tiny-kimi/tokenizer_config.json  Kimi's tokenizer class in auto_map,
//                                       the special tokens in
//                                       added_tokens_decoder at the offsets
//                                       Kimi K2.5 uses from the end of the
//                                       ranks ([BOS] +0 ... </think> +23,
//                                       [UNK] +254, [PAD] +255)
//
// The ranks are 256 single bytes (in GPT-2's bytes_to_unicode order, so
// that a byte's rank is not its value) and BPE merges trained on
// corpus.txt and kimi_corpus.txt, TOTAL ranks in all; a few hand-made
// tokens at the end exercise tiktoken's rules (a piece that is a whole
// token is taken whole even when no merge builds it). The chat template
// (../tiny-kimi/chat_template.jinja) is not written here: it is Kimi
// K2.5's own, see ../README.md. Needs only Node 20 (no packages) and is
// deterministic.
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, "..", "tiny-kimi");
const TOTAL = 1280;

// Kimi's pat_str in JavaScript syntax (v flag: class subtraction), used
// only to count words for training; the goldens come from tiktoken itself.
const C = "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?";
const U = String.raw`[[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]--\p{Script=Han}]`;
const L = String.raw`[[\p{Ll}\p{Lm}\p{Lo}\p{M}]--\p{Script=Han}]`;
const SPLIT = new RegExp(
  [String.raw`\p{Script=Han}+`, String.raw`[^\r\n\p{L}\p{N}]?${U}*${L}+${C}`, String.raw`[^\r\n\p{L}\p{N}]?${U}+${L}*${C}`,
    String.raw`\p{N}{1,3}`, String.raw` ?[^\s\p{L}\p{N}]+[\r\n]*`, String.raw`\s*[\r\n]+`, String.raw`\s+(?!\S)`, String.raw`\s+`].join("|"),
  "gv");

// GPT-2's byte order: printable Latin-1 first.
function byteOrder() {
  const printable = [], rest = [];
  for (let b = 0; b < 256; b++) {
    ((b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff) ? printable : rest).push(b);
  }
  return [...printable, ...rest];
}

const key = (bytes) => Buffer.from(bytes).toString("latin1");

function words(text) {
  const counts = new Map();
  for (const m of text.matchAll(SPLIT)) {
    const k = key(Buffer.from(m[0], "utf8"));
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  return Array.from(counts, ([k, count]) => ({ parts: Array.from(k), count }));
}

function bestPair(ws) {
  const pairs = new Map();
  for (const w of ws) {
    for (let i = 0; i + 1 < w.parts.length; i++) {
      const k = w.parts[i] + "\u0000" + w.parts[i + 1];
      pairs.set(k, (pairs.get(k) ?? 0) + w.count);
    }
  }
  let best = null, bestCount = 0;
  for (const [k, c] of pairs) {
    if (c > bestCount || (c === bestCount && k < best)) [best, bestCount] = [k, c];
  }
  return best;
}

function train(text, extra) {
  const ranks = byteOrder().map((b) => key([b]));
  const seen = new Set(ranks);
  const ws = words(text);
  while (ranks.length < TOTAL - extra.length) {
    const best = bestPair(ws);
    if (best === null) throw new Error(`corpus exhausted at ${ranks.length} ranks`);
    const [a, b] = best.split("\u0000");
    for (const w of ws) {
      const parts = [];
      for (let i = 0; i < w.parts.length; i++) {
        if (i + 1 < w.parts.length && w.parts[i] === a && w.parts[i + 1] === b) parts.push(a + b), i++;
        else parts.push(w.parts[i]);
      }
      w.parts = parts;
    }
    if (!seen.has(a + b)) seen.add(a + b), ranks.push(a + b);
  }
  for (const t of extra) if (!seen.has(t)) seen.add(t), ranks.push(t);
  if (ranks.length !== TOTAL) throw new Error(`want ${TOTAL} ranks, got ${ranks.length}`);
  return ranks;
}

// Kimi K2.5's special tokens and their offsets from the end of the ranks
// (163584 + offset in the real repo). The same ids are listed alike by
// several public Kimi integrations read for this (lightseekorg/smg's
// tokenizer tests for [BOS]..<|im_assistant|>, its K3 registry for the
// media tokens, and tokenizer tables of other projects for the rest); the
// real tokenizer_config.json is what MetaClaw reads at run time.
const SPECIALS = [
  ["[BOS]", 0], ["[EOS]", 1], ["<|im_end|>", 2], ["<|im_user|>", 3], ["<|im_assistant|>", 4],
  ["<|start_header_id|>", 6], ["<|end_header_id|>", 7], ["[EOT]", 9], ["<|im_system|>", 10],
  ["<|tool_calls_section_begin|>", 11], ["<|tool_calls_section_end|>", 12], ["<|tool_call_begin|>", 13],
  ["<|tool_call_argument_begin|>", 14], ["<|tool_call_end|>", 15], ["<|im_middle|>", 17],
  ["<|media_begin|>", 18], ["<|media_content|>", 19], ["<|media_end|>", 20], ["<|media_pad|>", 21],
  ["<think>", 22], ["</think>", 23], ["[UNK]", 254], ["[PAD]", 255],
];

function config(n) {
  const decoder = {};
  for (const [content, off] of SPECIALS) {
    decoder[String(n + off)] = { content, lstrip: false, normalized: false, rstrip: false, single_word: false, special: true };
  }
  return {
    added_tokens_decoder: decoder,
    additional_special_tokens: ["<|im_end|>", "<|im_user|>", "<|im_assistant|>", "<|start_header_id|>", "<|end_header_id|>", "[EOT]", "<|im_system|>", "<|im_middle|>"],
    auto_map: { AutoTokenizer: ["tokenization_kimi.TikTokenTokenizer", null] },
    bos_token: "[BOS]",
    clean_up_tokenization_spaces: false,
    eos_token: "[EOS]",
    extra_special_tokens: {},
    model_max_length: 1000000000000000019884624838656,
    pad_token: "[PAD]",
    tokenizer_class: "TikTokenTokenizer",
    unk_token: "[UNK]",
  };
}

const enc = (s) => key(Buffer.from(s, "utf8"));
const corpus = readFileSync(join(here, "corpus.txt"), "utf8") + readFileSync(join(here, "kimi_corpus.txt"), "utf8");
// Whole-piece tokens no merge builds ("qz", "zx", "xj" are not tokens),
// and a token whose halves have higher ranks than some longer tokens.
const extra = [enc("qzxj"), enc(" qzxj"), enc("天气很好")];
const ranks = train(corpus, extra);
mkdirSync(out, { recursive: true });
const lines = ranks.map((t, i) => `${Buffer.from(t, "latin1").toString("base64")} ${i}`);
writeFileSync(join(out, "tiktoken.model"), lines.join("\n") + "\n");
writeFileSync(join(out, "tokenizer_config.json"), JSON.stringify(config(ranks.length), null, 2) + "\n");
console.log(`tiny-kimi: ${ranks.length} ranks, specials ${ranks.length}-${ranks.length + 255}`);
