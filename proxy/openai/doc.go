// Package openai owns the OpenAI Chat Completions wire format as seen by
// the proxy: a request type that keeps the client's JSON object intact
// (unknown members are forwarded untouched) with typed accessors and
// setters for what the proxy reads or rewrites, request validation with
// OpenAI-style errors, response and stream-chunk types, and an Accumulator
// that rebuilds a streamed answer.
//
// The package is pure: standard library only, no project imports. The
// proxy server and proxy/anthropic (for translation) may import it.
package openai
