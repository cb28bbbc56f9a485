// golden.mjs writes the golden files the Go tests of app/learner/policy/...
// compare against, using Hugging Face's JavaScript implementations:
// @huggingface/tokenizers (tokenizers.js) for token ids and
// @huggingface/jinja for chat templates.
//
//   ../golden/encode.json  ids and decoded text of cases/strings.json for
//                          each tiny tokenizer
//   ../golden/render.json  each conversation of cases/conversations.json
//                          rendered with each template of ../templates,
//                          and the tiny-qwen ids of the rendering
//
// The packages are not installed in the repository. Install them in a
// cache directory and point HFREF_PREFIX at it (see regen.sh):
//
//   npm install --prefix ~/.cache/metaclaw-hfref \
//     @huggingface/tokenizers@0.2.0 @huggingface/jinja@0.5.11
//   HFREF_PREFIX=~/.cache/metaclaw-hfref node golden.mjs [outdir]
import { createRequire } from "node:module";
import { readFileSync, writeFileSync, mkdirSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { homedir } from "node:os";

const here = dirname(fileURLToPath(import.meta.url));
const testdata = join(here, "..");
const prefix = process.env.HFREF_PREFIX ?? join(homedir(), ".cache", "metaclaw-hfref");
const require = createRequire(join(prefix, "package.json"));
const { Tokenizer } = require("@huggingface/tokenizers");
const { Template } = require("@huggingface/jinja");
const outDir = process.argv[2] ?? join(testdata, "golden");

const readJSON = (...p) => JSON.parse(readFileSync(join(testdata, ...p), "utf8"));
const version = (name) =>
  JSON.parse(readFileSync(join(prefix, "node_modules", name, "package.json"), "utf8")).version;

function loadTokenizer(name) {
  return new Tokenizer(readJSON(name, "tokenizer.json"), { clean_up_tokenization_spaces: false });
}

function encodeGolden(tokenizers) {
  const strings = readJSON("cases", "strings.json");
  const out = {};
  for (const [name, tok] of Object.entries(tokenizers)) {
    out[name] = strings.map(({ name: caseName, text }) => {
      const ids = tok.encode(text, { add_special_tokens: false }).ids;
      const decoded = ids.length > 0 ? tok.decode(ids, { clean_up_tokenization_spaces: false }) : "";
      return { name: caseName, ids, decoded };
    });
  }
  return out;
}

// The globals Hugging Face's apply_chat_template gives every template.
function templateContext(conv, bos, eos) {
  return {
    messages: conv.messages,
    tools: conv.tools ?? null, // apply_chat_template passes tools=None
    documents: null,
    add_generation_prompt: conv.add_generation_prompt ?? false,
    bos_token: bos,
    eos_token: eos,
    date_string: "29 Nov 2025", // so that Llama-style templates need no clock
    ...(conv.kwargs ?? {}),
  };
}

function renderGolden(qwen) {
  const conversations = readJSON("cases", "conversations.json");
  const templates = readdirSync(join(testdata, "templates")).filter((f) => f.endsWith(".jinja")).sort();
  const out = {};
  for (const file of templates) {
    const source = readFileSync(join(testdata, "templates", file), "utf8");
    const tmpl = new Template(source);
    out[file] = conversations.map((conv) => {
      try {
        const text = tmpl.render(templateContext(conv, "<|endoftext|>", "<|im_end|>"));
        return { name: conv.name, text, ids: qwen.encode(text, { add_special_tokens: false }).ids };
      } catch (err) {
        return { name: conv.name, error: String(err.message ?? err) };
      }
    });
  }
  return out;
}

const tokenizers = { "tiny-qwen": loadTokenizer("tiny-qwen"), "tiny-llama3": loadTokenizer("tiny-llama3") };
const meta = {
  generator: "testdata/hfref/golden.mjs",
  "@huggingface/tokenizers": version("@huggingface/tokenizers"),
  "@huggingface/jinja": version("@huggingface/jinja"),
  node: process.version,
};
mkdirSync(outDir, { recursive: true });
const write = (file, value) => writeFileSync(join(outDir, file), JSON.stringify({ meta, ...value }, null, 1) + "\n");
write("encode.json", { tokenizers: encodeGolden(tokenizers) });
write("render.json", { templates: renderGolden(tokenizers["tiny-qwen"]) });
console.log(`wrote ${outDir}`);
