// train.mjs trains the tiny byte-level BPE vocabularies used as test
// fixtures by app/learner/policy/... and writes them as Hugging Face
// tokenizer.json files:
//
//   ../tiny-qwen/tokenizer.json    Qwen2/Qwen3 layout: NFC, Qwen split
//                                  pattern, merges as "a b" strings.
//   ../tiny-llama3/tokenizer.json  Llama 3 layout: no normaliser, digits in
//                                  threes, ignore_merges, merges as pairs.
//
// Both share one vocabulary trained on corpus.txt. Each also gets a
// tokenizer_config.json with a chat template from ../templates: tiny-qwen
// the Qwen3-style one as a string, tiny-llama3 the Llama-3-style one in
// the list-of-{name, template} form with an AddedToken-object bos_token. The script needs only
// Node (no packages) and is deterministic: run `node train.mjs` from this
// directory and the files come out byte for byte the same.
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const NUM_MERGES = 420;

const QWEN_PATTERN =
  "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
const LLAMA3_PATTERN = QWEN_PATTERN.replace("|\\p{N}|", "|\\p{N}{1,3}|");
// The same split in JavaScript syntax, used only to count words here.
const JS_SPLIT =
  /'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD]|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+/gu;

// bytesToUnicode is GPT-2's byte to printable-rune table.
function bytesToUnicode() {
  const table = [];
  let next = 256;
  for (let b = 0; b < 256; b++) {
    const printable = (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
    table.push(String.fromCodePoint(printable ? b : next++));
  }
  return table;
}

const byteChars = bytesToUnicode();
const encoder = new TextEncoder();

function wordCounts(text) {
  const counts = new Map();
  for (const m of text.normalize("NFC").matchAll(JS_SPLIT)) {
    const symbols = Array.from(encoder.encode(m[0]), (b) => byteChars[b]);
    const key = symbols.join("\u0000");
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return Array.from(counts, ([key, count]) => ({ symbols: key.split("\u0000"), count }));
}

function bestPair(words) {
  const pairs = new Map();
  for (const w of words) {
    for (let i = 0; i + 1 < w.symbols.length; i++) {
      const key = w.symbols[i] + " " + w.symbols[i + 1];
      pairs.set(key, (pairs.get(key) ?? 0) + w.count);
    }
  }
  let best = null;
  let bestCount = 0;
  for (const [key, count] of pairs) {
    if (count > bestCount || (count === bestCount && best !== null && key < best)) {
      best = key;
      bestCount = count;
    }
  }
  return best;
}

function applyMerge(words, a, b) {
  for (const w of words) {
    const out = [];
    for (let i = 0; i < w.symbols.length; i++) {
      if (i + 1 < w.symbols.length && w.symbols[i] === a && w.symbols[i + 1] === b) {
        out.push(a + b);
        i++;
      } else {
        out.push(w.symbols[i]);
      }
    }
    w.symbols = out;
  }
}

function train(text) {
  const vocab = {};
  byteChars.forEach((c, i) => (vocab[c] = i));
  const merges = [];
  const words = wordCounts(text);
  while (merges.length < NUM_MERGES) {
    const best = bestPair(words);
    if (best === null) break;
    const [a, b] = best.split(" ");
    applyMerge(words, a, b);
    merges.push([a, b]);
    if (!(a + b in vocab)) vocab[a + b] = Object.keys(vocab).length;
  }
  return { vocab, merges };
}

function added(id, content, special) {
  return { id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special };
}

function qwenFile(vocab, merges) {
  const n = Object.keys(vocab).length;
  const names = [
    ["<|endoftext|>", true], ["<|im_start|>", true], ["<|im_end|>", true],
    ["<tool_call>", false], ["</tool_call>", false], ["<think>", false], ["</think>", false],
    ["<tool_response>", false], ["</tool_response>", false],
  ];
  return {
    version: "1.0",
    truncation: null,
    padding: null,
    added_tokens: names.map(([c, s], i) => added(n + i, c, s)),
    normalizer: { type: "NFC" },
    pre_tokenizer: {
      type: "Sequence",
      pretokenizers: [
        { type: "Split", pattern: { Regex: QWEN_PATTERN }, behavior: "Isolated", invert: false },
        { type: "ByteLevel", add_prefix_space: false, trim_offsets: false, use_regex: false },
      ],
    },
    post_processor: { type: "ByteLevel", add_prefix_space: false, trim_offsets: false, use_regex: false },
    decoder: { type: "ByteLevel", add_prefix_space: false, trim_offsets: false, use_regex: false },
    model: {
      type: "BPE", dropout: null, unk_token: null, continuing_subword_prefix: "", end_of_word_suffix: "",
      fuse_unk: false, byte_fallback: false, ignore_merges: false,
      vocab, merges: merges.map(([a, b]) => a + " " + b),
    },
  };
}

function llama3File(vocab, merges) {
  const n = Object.keys(vocab).length;
  const names = [
    "<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>", "<|end_header_id|>",
    "<|eot_id|>", "<|eom_id|>", "<|python_tag|>",
  ];
  const file = qwenFile(vocab, merges);
  file.added_tokens = names.map((c, i) => added(n + i, c, true));
  file.normalizer = null;
  file.pre_tokenizer.pretokenizers[0].pattern.Regex = LLAMA3_PATTERN;
  file.post_processor = null;
  file.model.ignore_merges = true;
  file.model.merges = merges;
  return file;
}

function write(dir, file, value) {
  mkdirSync(join(here, "..", dir), { recursive: true });
  writeFileSync(join(here, "..", dir, file), JSON.stringify(value, null, 2) + "\n");
}

const template = (name) => readFileSync(join(here, "..", "templates", name), "utf8");

function addedToken(content) {
  return { __type: "AddedToken", content, lstrip: false, normalized: false, rstrip: false, single_word: false, special: true };
}

const corpus = readFileSync(join(here, "corpus.txt"), "utf8") + "Windows\r\nline\r\nendings.\r\n";
const { vocab, merges } = train(corpus);
write("tiny-qwen", "tokenizer.json", qwenFile(vocab, merges));
write("tiny-llama3", "tokenizer.json", llama3File(vocab, merges));
write("tiny-qwen", "tokenizer_config.json", {
  add_bos_token: false,
  bos_token: null,
  chat_template: template("qwen3-style.jinja"),
  clean_up_tokenization_spaces: false,
  eos_token: "<|im_end|>",
  model_max_length: 131072,
  pad_token: "<|endoftext|>",
  tokenizer_class: "Qwen2Tokenizer",
  unk_token: null,
});
write("tiny-llama3", "tokenizer_config.json", {
  bos_token: addedToken("<|begin_of_text|>"),
  chat_template: [
    { name: "default", template: template("llama3-style.jinja") },
    { name: "tool_use", template: template("llama3-style.jinja").replace("Environment: ipython", "Environment: ipython (tool_use)") },
  ],
  clean_up_tokenization_spaces: true,
  eos_token: addedToken("<|eot_id|>"),
  tokenizer_class: "PreTrainedTokenizerFast",
});
console.log(`vocab ${Object.keys(vocab).length}, merges ${merges.length}`);
