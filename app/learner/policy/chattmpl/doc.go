// Package chattmpl renders chat conversations into prompt text with a
// model's Hugging Face chat template (the chat_template of
// tokenizer_config.json), the way transformers' apply_chat_template does,
// so that MetaClaw can sample from and train a policy model on exactly the
// prompt the model expects.
//
// Templates run on github.com/nikolalohinski/gonja/v2 with Hugging Face's
// settings (trim_blocks, lstrip_blocks, loop controls) and the helpers
// transformers adds: a tojson that writes Python's json.dumps format (", "
// and ": " separators, no HTML escaping, ensure_ascii off, indent,
// separators and sort_keys arguments), raise_exception, strftime_now and
// the {% generation %} tag. Messages and tools are decoded from JSON into
// ordered dictionaries, so tool schemas and tool-call arguments render in
// the client's key order; dict.items(), keys(), values(), get(), |items
// and |dictsort work on them, and None (JSON null) is defined but falsy
// as in Python.
//
// Decision on tool-call arguments: OpenAI clients send
// function.arguments as a JSON string. transformers passes messages to the
// template as given, and Qwen-style templates print a string argument
// verbatim, so by default the string reaches the prompt unchanged, byte
// for byte what the client sent (and, for a call the policy produced,
// what it sampled: see package toolparse). Options.ParseArguments
// switches to vLLM's behaviour of parsing it first.
//
// Kimi K2.5: its tokenizer class (tokenization_kimi.TikTokenTokenizer,
// named in auto_map) prepares the chat in Python before the template runs.
// A Renderer for such a config does the same (Config.Kimi): the tools'
// keys are sorted recursively and tools_ts_str is set to Moonshot's
// TypeScript-style tool declaration (KimiToolsTS); Options.EnableThinking
// sets Kimi's own switch, the thinking variable.
//
// Known differences from Python Jinja2: None prints as "" rather than
// "None", a missing variable or key counts as none for `is none`, and
// dict(...) keyword arguments come out in sorted order. Printing
// containers directly (rather than through tojson) follows gonja, not
// Python's repr.
//
// The learner (app/learner/...) and the app may import this package; it
// imports no project package.
package chattmpl
