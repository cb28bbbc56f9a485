// Package policy serves the model MetaClaw trains, in the rl and madmax
// modes: the base model rl.model plus the latest LoRA sampler checkpoint on
// a Tinker-compatible service. MetaClaw renders the prompt and samples the
// tokens itself, so the tokens it later trains on are exactly the tokens
// the agent was answered with.
//
// A Server implements the proxy's Policy interface: Ready, and an
// http.RoundTripper that speaks OpenAI Chat Completions (JSON, or SSE with
// "stream": true). For each request it renders the messages and tools with
// the model's Hugging Face chat template (package chattmpl), encodes the
// prompt (package tokenizer), samples from the current sampling session
// with the request's temperature, top_p, max tokens and stop strings,
// decodes the tokens, splits reasoning and tool calls out of the model's
// own markup (package toolparse) and answers in the OpenAI format. For a
// main turn it stores the prompt tokens, sampled tokens, sampler logprobs,
// checkpoint and skill generation as a store.Sample and names it in the
// X-Metaclaw-Sample-Id response header.
//
// # Streaming and time to first byte
//
// Tinker's asample returns whole sequences; the service does not stream
// tokens. A streamed request is therefore answered only when sampling has
// finished: the decoded answer is then sent at once as OpenAI SSE chunks
// (role, reasoning and content deltas, tool-call deltas, finish reason,
// usage, [DONE]). Time to first byte equals the full sampling time.
//
// # Set-up
//
// Serve connects to the service (session and heartbeat), fetches the
// tokenizer.json, tokenizer_config.json and chat_template.jinja of the
// tokenizer repo from the Hugging Face Hub on first use
// (<hf_endpoint>/<repo>/resolve/main/<file>) into
// <data dir>/tokenizers/<repo>/, and later loads them from there without
// the network. The repo is rl.tokenizer when set, else the one get_info
// reports for the model of the served checkpoint, else the one Tinker's
// rules derive from rl.model. Until all of this works Ready reports false
// with the reason, and the proxy serves turns from llm.* (not trainable).
// Serve keeps retrying; it returns only when its context ends.
//
// # Hot swap
//
// The sampling session in use sits behind an atomic pointer. UseCheckpoint,
// or a change of the serving checkpoint in the database (the trainer's
// step, a rollback from the web page), makes Serve open a sampling session
// for the new checkpoint off the request path; requests keep using the old
// one until the new one exists, then new requests use the new one at once
// while requests in flight finish on the one they started with.
//
// # Imports
//
// The app imports this package and wires a Server into the proxy. It
// imports store, proxy/openai, proxy/sse and the learner's tinker,
// tokenizer, chattmpl and toolparse packages, never proxy itself: the
// header names are repeated here.
package policy
