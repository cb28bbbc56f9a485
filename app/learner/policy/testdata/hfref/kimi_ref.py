"""kimi_ref.py writes ../golden/kimi_python.json, the reference for how
Moonshot's Kimi K2.5 tokenizer prepares and renders a chat, from Moonshot's
own tool encoder and Python Jinja2 (what transformers runs):

  tools_ts    each tool list of ../cases/kimi_tools.json, keys sorted
              recursively, through encode_tools_to_typescript_style, or the
              exception it raises
  renderings  each conversation of ../cases/kimi_conversations.json
              rendered with ../tiny-kimi/chat_template.jinja the way
              TikTokenTokenizer.apply_chat_template does: tools sorted,
              tools_ts_str set to their TypeScript declaration unless the
              encoder raised, then transformers' apply_chat_template; each
              records the tools and tools_ts_str it passed, which
              golden_kimi.mjs gives @huggingface/jinja

    KIMI_TOOL_DECLARATION_TS=/path/to/tool_declaration_ts.py python3 kimi_ref.py

tool_declaration_ts.py is Moonshot's file in the moonshotai/Kimi-K2.5 Hugging
Face repo; thinking-machines-lab/tinker-cookbook keeps a copy as
tinker_cookbook/renderers/kimi_k2_5_tool_declaration_ts.py. It is not part of
this repository. It needs only the Python standard library; this script also
needs jinja2 (the environment of check_jinja.py).
"""

import importlib.util
import json
import os
import sys
from pathlib import Path

import jinja2

from check_jinja import environment

TESTDATA = Path(__file__).resolve().parent.parent


def load_encoder():
    path = os.environ.get("KIMI_TOOL_DECLARATION_TS")
    if not path:
        sys.exit("set KIMI_TOOL_DECLARATION_TS to Moonshot's tool_declaration_ts.py")
    spec = importlib.util.spec_from_file_location("tool_declaration_ts", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.encode_tools_to_typescript_style


def sort_keys(value):
    """Sort dictionary keys recursively, as tokenization_kimi does to tools."""
    if isinstance(value, dict):
        return {k: sort_keys(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [sort_keys(v) for v in value]
    return value


def typescript(encode, tools):
    try:
        return encode(sort_keys(tools)), None
    except Exception as err:  # tokenization_kimi falls back to JSON on any exception
        return None, f"{type(err).__name__}: {err}"


def render(env, source, encode, conv):
    tools = sort_keys(conv.get("tools")) if conv.get("tools") else None
    context = dict(messages=conv["messages"], tools=tools, documents=None,
                   add_generation_prompt=conv.get("add_generation_prompt", False),
                   bos_token="[BOS]", eos_token="[EOS]", unk_token="[UNK]", pad_token="[PAD]")
    if tools:
        ts, _ = typescript(encode, tools)
        if ts is not None:
            context["tools_ts_str"] = ts
    record = {"name": conv["name"]}
    if tools:
        record["tools"] = tools
    if "tools_ts_str" in context:
        record["tools_ts_str"] = context["tools_ts_str"]
    context.update(conv.get("kwargs", {}))
    try:
        record["text"] = env.from_string(source).render(**context)
    except Exception as err:
        record["error"] = str(err)
    return record


def main():
    encode = load_encoder()
    env = environment()
    source = (TESTDATA / "tiny-kimi" / "chat_template.jinja").read_text()
    toolsets = json.loads((TESTDATA / "cases" / "kimi_tools.json").read_text())
    convs = json.loads((TESTDATA / "cases" / "kimi_conversations.json").read_text())
    tools_ts = []
    for ts_case in toolsets:
        ts, err = typescript(encode, ts_case["tools"])
        tools_ts.append({"name": ts_case["name"], "ts": ts} if err is None else {"name": ts_case["name"], "error": err})
    out = {
        "meta": {"generator": "testdata/hfref/kimi_ref.py", "jinja2": jinja2.__version__,
                 "python": sys.version.split()[0], "tool_declaration_ts": Path(os.environ["KIMI_TOOL_DECLARATION_TS"]).name},
        "tools_ts": tools_ts,
        "renderings": [render(env, source, encode, c) for c in convs],
    }
    path = TESTDATA / "golden" / "kimi_python.json"
    path.write_text(json.dumps(out, ensure_ascii=False, indent=1) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
