// golden_kimi.mjs writes ../golden/kimi.json, the goldens of the Kimi K2.5
// fixture (../tiny-kimi), from independent implementations:
//
//   encode      the ids and decoded text of every string of
//               ../cases/strings.json and ../cases/kimi_strings.json, from
//               OpenAI's tiktoken (the npm package: tiktoken's Rust core in
//               WASM, the engine tokenization_kimi.py runs) with Kimi's
//               pat_str and special tokens, allowed_special "all"
//   renderings  each conversation of ../cases/kimi_conversations.json
//               rendered with ../tiny-kimi/chat_template.jinja by
//               @huggingface/jinja, with the tools and tools_ts_str that
//               kimi_ref.py prepared (../golden/kimi_python.json), and the
//               tiktoken ids of Python Jinja2's rendering of it
//
// The packages are not installed in the repository (see regen.sh):
//   HFREF_PREFIX=~/.cache/metaclaw-hfref node golden_kimi.mjs [outdir]
import { createRequire } from "node:module";
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { homedir } from "node:os";

const here = dirname(fileURLToPath(import.meta.url));
const testdata = join(here, "..");
const prefix = process.env.HFREF_PREFIX ?? join(homedir(), ".cache", "metaclaw-hfref");
const require = createRequire(join(prefix, "package.json"));
const { Tiktoken } = require("tiktoken/lite");
const { Template } = require("@huggingface/jinja");
const outDir = process.argv[2] ?? join(testdata, "golden");

const readJSON = (...p) => JSON.parse(readFileSync(join(testdata, ...p), "utf8"));
const version = (name) =>
  JSON.parse(readFileSync(join(prefix, "node_modules", name, "package.json"), "utf8")).version;

// TikTokenTokenizer.pat_str of Moonshot's tokenization_kimi.py, verbatim.
const KIMI_PAT_STR = [
  String.raw`[\p{Han}]+`,
  String.raw`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}&&[^\p{Han}]]*[\p{Ll}\p{Lm}\p{Lo}\p{M}&&[^\p{Han}]]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?`,
  String.raw`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}&&[^\p{Han}]]+[\p{Ll}\p{Lm}\p{Lo}\p{M}&&[^\p{Han}]]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?`,
  String.raw`\p{N}{1,3}`,
  String.raw` ?[^\s\p{L}\p{N}]+[\r\n]*`,
  String.raw`\s*[\r\n]+`,
  String.raw`\s+(?!\S)`,
  String.raw`\s+`,
].join("|");

// The encoding tokenization_kimi.py builds: ranks from tiktoken.model, and
// ids len(ranks) to len(ranks)+255 as special tokens, named by
// added_tokens_decoder or <|reserved_token_{id}|>.
function kimiEncoding() {
  const ranks = readFileSync(join(testdata, "tiny-kimi", "tiktoken.model"), "utf8");
  const n = ranks.split("\n").filter((l) => l !== "").length;
  const named = readJSON("tiny-kimi", "tokenizer_config.json").added_tokens_decoder;
  const specials = {};
  for (let id = n; id < n + 256; id++) specials[named[id]?.content ?? `<|reserved_token_${id}|>`] = id;
  return new Tiktoken(ranks, specials, KIMI_PAT_STR);
}

const utf8 = new TextDecoder("utf-8"); // invalid bytes become U+FFFD, as errors="replace"
const encode = (enc, text) => Array.from(enc.encode(text, "all"));

function encodeGolden(enc) {
  const strings = [...readJSON("cases", "strings.json"), ...readJSON("cases", "kimi_strings.json")];
  return strings.map(({ name, text }) => {
    const ids = encode(enc, text);
    return { name, ids, decoded: utf8.decode(enc.decode(new Uint32Array(ids))) };
  });
}

function renderGolden(enc) {
  const source = readFileSync(join(testdata, "tiny-kimi", "chat_template.jinja"), "utf8");
  const tmpl = new Template(source);
  const python = readJSON("golden", "kimi_python.json").renderings;
  return readJSON("cases", "kimi_conversations.json").map((conv, i) => {
    const py = python[i];
    if (py.name !== conv.name) throw new Error(`kimi_python.json is stale: ${py.name} != ${conv.name}`);
    const out = { name: conv.name };
    try {
      out.jinja_js_text = tmpl.render({ ...contextOf(conv, py), ...(conv.kwargs ?? {}) });
    } catch (err) {
      out.jinja_js_error = String(err.message ?? err);
    }
    if (py.text !== undefined) out.python_ids = encode(enc, py.text);
    return out;
  });
}

// The variables TikTokenTokenizer.apply_chat_template passes, taken from
// kimi_ref.py's record of them (sorted tools, tools_ts_str).
function contextOf(conv, py) {
  return {
    messages: conv.messages, tools: py.tools ?? null, documents: null,
    add_generation_prompt: conv.add_generation_prompt ?? false,
    bos_token: "[BOS]", eos_token: "[EOS]", unk_token: "[UNK]", pad_token: "[PAD]",
    ...(py.tools_ts_str !== undefined ? { tools_ts_str: py.tools_ts_str } : {}),
  };
}

const enc = kimiEncoding();
const meta = {
  generator: "testdata/hfref/golden_kimi.mjs",
  tiktoken: version("tiktoken"),
  "@huggingface/jinja": version("@huggingface/jinja"),
  node: process.version,
};
mkdirSync(outDir, { recursive: true });
writeFileSync(join(outDir, "kimi.json"),
  JSON.stringify({ meta, encode: encodeGolden(enc), renderings: renderGolden(enc) }, null, 1) + "\n");
enc.free();
console.log(`wrote ${join(outDir, "kimi.json")}`);
