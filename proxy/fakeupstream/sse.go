package fakeupstream

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"sync/atomic"
)

// streamer writes the SSE events of one streaming response, applying the
// reply's ChunkDelay, HoldAfterFirst, FailAfterChunks and ErrorAfterChunks.
type streamer struct {
	s        *Server
	w        http.ResponseWriter
	rc       *http.ResponseController
	r        *http.Request
	c        *compiled
	buf      []byte // scratch buffer for building frames
	errFrame []byte // in-stream error event, sent after ErrorAfterChunks events
	sent     int
	stopped  bool
}

// startStream writes the 200 headers of an SSE response and flushes them.
func (s *Server) startStream(w http.ResponseWriter, r *http.Request, c *compiled, hdr http.Header) *streamer {
	h := w.Header()
	for k, v := range hdr {
		h[k] = v
	}
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	st := &streamer{s: s, w: w, rc: http.NewResponseController(w), r: r, c: c, buf: make([]byte, 0, 512)}
	if err := st.rc.Flush(); err != nil {
		st.stopped = true
	}
	return st
}

// send writes and flushes one SSE frame. It reports whether the stream goes
// on; false means the client went away, the server closed, or an in-stream
// error ended the stream. A FailAfterChunks abort does not return.
func (st *streamer) send(frame []byte) bool {
	if st.stopped {
		return false
	}
	if st.sent > 0 && !st.s.await(st.r, st.c.ChunkDelay) {
		return st.stop()
	}
	if !st.write(frame) {
		return false
	}
	st.sent++
	if st.sent == 1 && st.c.HoldAfterFirst != nil && !st.s.awaitChan(st.r, st.c.HoldAfterFirst) {
		return st.stop()
	}
	if st.c.FailAfterChunks > 0 && st.sent >= st.c.FailAfterChunks {
		// Closes the connection without terminating the chunked body.
		panic(http.ErrAbortHandler)
	}
	if st.c.ErrorAfterChunks > 0 && st.sent == st.c.ErrorAfterChunks {
		st.write(st.errFrame)
		return st.stop()
	}
	return true
}

// write writes and flushes raw bytes, stopping the stream on failure.
func (st *streamer) write(b []byte) bool {
	if _, err := st.w.Write(b); err != nil {
		return st.stop()
	}
	if err := st.rc.Flush(); err != nil {
		return st.stop()
	}
	return true
}

// stop marks the stream as finished and returns false.
func (st *streamer) stop() bool {
	st.stopped = true
	return false
}

// writeBody answers a non-streaming request with a JSON body. It applies
// HoldAfterFirst (before the body) and FailAfterChunks (truncated body, then
// abort).
func (s *Server) writeBody(w http.ResponseWriter, r *http.Request, c *compiled, hdr http.Header, body []byte) {
	if c != nil && c.HoldAfterFirst != nil && !s.awaitChan(r, c.HoldAfterFirst) {
		return
	}
	h := w.Header()
	for k, v := range hdr {
		h[k] = v
	}
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	if c != nil && c.FailAfterChunks > 0 {
		_, _ = w.Write(body[:len(body)/2])
		_ = http.NewResponseController(w).Flush()
		panic(http.ErrAbortHandler)
	}
	_, _ = w.Write(body)
}

// writeJSONStatus writes body with status and the JSON content type.
func writeJSONStatus(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// marshal encodes v as JSON without HTML escaping (as the real providers
// do) and without a trailing newline. It panics on failure, which only a
// programming error in this package can cause.
func marshal(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic("fakeupstream: marshal: " + err.Error())
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// appendString appends s as a JSON string.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x7f {
			return append(b, marshal(s)...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendInt appends n in decimal.
func appendInt(b []byte, n int) []byte { return strconv.AppendInt(b, int64(n), 10) }

// toolSeq numbers generated tool call ids.
var toolSeq atomic.Uint64

// toolID returns tc's id, or a generated one with prefix.
func toolID(tc ToolCall, prefix string) string {
	if tc.ID != "" {
		return tc.ID
	}
	return prefix + idSuffix(toolSeq.Add(1))
}
