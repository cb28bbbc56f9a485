// Package sse owns Server-Sent Events framing: an incremental Reader that
// splits a text/event-stream into events (keeping each event's raw bytes so a
// relay can forward them untouched) and helpers that format events.
//
// It follows the WHATWG HTML "server-sent events" parsing rules, with one
// deliberate difference: an event still open when the stream ends is
// returned if it carried data, instead of being discarded.
//
// The package is pure (standard library only, no project imports). Any proxy
// package may import it; it imports nothing from the project.
package sse
