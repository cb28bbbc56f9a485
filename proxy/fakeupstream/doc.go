// Package fakeupstream is an in-process fake LLM provider for tests,
// end-to-end tests and benchmarks.
//
// It stands in for OpenAI-compatible providers (OpenAI, Kimi, DeepSeek) and
// for Anthropic, and speaks their real wire formats closely enough that the
// official SDK clients (openai-go, anthropic-sdk-go, the Node SDKs) parse its
// output unchanged, streaming included. Only the standard library is used.
//
// Endpoints, all under /v1:
//
//   - POST /v1/chat/completions: OpenAI chat completions, JSON or SSE
//     (stream:true, honouring stream_options.include_usage).
//   - POST /v1/messages: Anthropic messages, JSON or SSE (stream:true).
//   - POST /v1/messages/count_tokens: Anthropic token counting (a rough
//     estimate from the body length).
//   - GET /v1/models and GET /v1/models/{id}: OpenAI's list shape, or
//     Anthropic's when the request carries an anthropic-version header.
//   - POST /v1/embeddings: deterministic hashed bag-of-words embeddings.
//   - POST /v1/completions: legacy completions, with echo and logprobs.
//   - anything else: 404 in OpenAI's error shape (Anthropic's for requests
//     that carry anthropic-version).
//
// Responses are scripted with [Reply] values: [Server.Enqueue] queues replies
// that are used first-in first-out by the two generation endpoints, and the
// default reply ([Server.SetDefault]) answers when the queue is empty. A Reply
// can also delay, hang, fail with an error status, answer 200 with a body
// that is not a completion (RawBody), break the stream midway,
// or hold the stream after its first event until a test releases it.
//
// A [Model] scripts the fake as a model instead of a queue: rules on the
// conversation (system prompt, last user message, how many tool rounds
// followed it) choose the reply, so a whole agent run and the learning
// calls between its turns can be played in any order.
//
// Every request is recorded (method, path, headers, body) and can be
// inspected with [Server.Requests].
//
// Typical use:
//
//	up := fakeupstream.New()
//	base, err := up.Start() // "http://127.0.0.1:PORT"
//	if err != nil { ... }
//	defer up.Close()
//	up.Enqueue(fakeupstream.Reply{Text: "hello"})
//	// point a client at base+"/v1" (OpenAI) or base (Anthropic SDK).
package fakeupstream
