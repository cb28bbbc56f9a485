// Package anthropic owns the Anthropic Messages API wire format as seen by
// the proxy: a request type that keeps the client's JSON object intact for
// native pass-through (with typed accessors, validation, a conversation
// reader that skips decoding the messages, and system-prompt injection),
// Anthropic error bodies, translation of requests to OpenAI
// Chat Completions (ToOpenAI) and of responses back (FromOpenAI), a
// StreamTranslator that turns an OpenAI stream into Anthropic SSE events,
// and an Accumulator that rebuilds natively streamed messages.
//
// The package is pure: standard library and gjson plus proxy/openai
// (OpenAI wire types), proxy/sse (event formatting) and
// proxy/internal/rawjson (raw JSON objects); no other project imports. The
// proxy server may import it; proxy/openai and proxy/sse must not.
package anthropic
