// Package toolparse splits the raw completion text of a policy model into
// what an OpenAI-style client expects: content, reasoning and tool calls.
// MetaClaw samples tokens itself in rl and madmax modes, so it must read
// the model's own markup: <think> blocks (and the bare </think> Qwen3
// writes when the prompt opened the block), and the tool-call formats of
// Qwen/Hermes, Llama 3.x, Kimi K2 and DeepSeek V3/V3.1.
//
// Parsing never fails and never drops text: a call that does not parse
// (bad JSON, no name, an unclosed block) stays in the content as written.
// Arguments keep the JSON text the model wrote (key order and spacing
// included), so that a client sending them back yields the same prompt
// tokens.
//
// The learner (app/learner/...) and the app may import this package; it
// imports no project package.
package toolparse
