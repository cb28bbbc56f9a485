package proxy

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"sync/atomic"
	"time"

	"github.com/metaclaw/metaclaw/proxy/anthropic"
	"github.com/metaclaw/metaclaw/proxy/openai"
	"github.com/metaclaw/metaclaw/proxy/sse"
)

// streamConv turns upstream SSE events into the bytes the client gets, and
// remembers what was said for recording.
type streamConv interface {
	// event returns the bytes to send for one upstream event (nil: none).
	// An error means the upstream reported a failure inside the stream.
	event(ev sse.Event) ([]byte, error)
	// complete reports whether the upstream finished its answer.
	complete() bool
	// finish returns the bytes that end a stream the upstream ended cleanly
	// without its own terminator (nil when none are needed).
	finish() []byte
	// fail returns a well-formed error event for the client's API.
	fail(typ, message string) []byte
	response() response
}

// observer is a streamConv that relays every event byte for byte; relay
// writes and flushes the event first and lets the converter read it after,
// so parsing never delays the client.
type observer interface {
	observe(ev sse.Event) error
}

// relay copies an upstream event stream to the client as events arrive.
// It flushes what it wrote whenever it has no further event in hand, that
// is before any read that may wait for the upstream: one event arriving
// alone leaves at once, several arriving together leave in one write. It
// stops when the upstream ends, fails, goes silent for longer than idle,
// or the client goes away (a failed write), and cancels the upstream call
// on the way out. It returns the turn's status and error text for
// recording.
func relay(w *bufio.Writer, body io.Reader, conv streamConv, idle time.Duration, cancel func(), onFirst func()) (int, string) {
	defer cancel()
	ir := newIdleReader(body, idle, cancel)
	defer ir.stop()
	out := &flusher{w: w, onFirst: onFirst}
	rd := sse.NewReader(readAfterFlush{ir, out})
	obs, passthrough := conv.(observer)
	var streamErr error
	for {
		ev, err := rd.Next()
		if err != nil {
			if out.gone {
				return 499, "client disconnected"
			}
			if streamErr != nil {
				writeTail(w, conv.finish())
				return 502, "upstream error in stream: " + streamErr.Error()
			}
			return endStream(w, conv, err, ir.timedOut())
		}
		b, convErr := ev.Raw, error(nil)
		if !passthrough {
			b, convErr = conv.event(ev)
		}
		if len(b) > 0 {
			if _, err := w.Write(b); err != nil {
				return 499, "client disconnected"
			}
			if rd.Buffered() == 0 && out.flush() != nil { // nothing more in hand
				return 499, "client disconnected"
			}
		}
		if passthrough {
			convErr = obs.observe(ev) // after the bytes are on their way
		}
		if convErr != nil && streamErr == nil {
			streamErr = convErr // relayed as the upstream sent it; recorded at the end
		}
	}
}

// flusher flushes the client's writer and notes the first flush that sent
// bytes, and a failed one (the client left).
type flusher struct {
	w       *bufio.Writer
	onFirst func()
	gone    bool
}

func (f *flusher) flush() error {
	if f.w.Buffered() == 0 {
		return nil
	}
	if err := f.w.Flush(); err != nil {
		f.gone = true
		return err
	}
	if f.onFirst != nil {
		f.onFirst()
		f.onFirst = nil
	}
	return nil
}

// readAfterFlush reads the upstream only after flushing what the client
// has not got yet, so that no event waits for the next one.
type readAfterFlush struct {
	r   io.Reader
	out *flusher
}

func (ra readAfterFlush) Read(p []byte) (int, error) {
	if err := ra.out.flush(); err != nil {
		return 0, err
	}
	return ra.r.Read(p)
}

func writeTail(w *bufio.Writer, tail []byte) {
	if len(tail) > 0 {
		w.Write(tail)
	}
	w.Flush()
}

// endStream handles the end of the upstream body: a clean end (with the
// answer complete) or a failure, which the client sees as an error event.
func endStream(w *bufio.Writer, conv streamConv, err error, timedOut bool) (int, string) {
	if errors.Is(err, io.EOF) && conv.complete() {
		writeTail(w, conv.finish())
		return 200, ""
	}
	status, typ, msg := 502, "upstream_error", "upstream stream ended before the answer was complete"
	switch {
	case timedOut:
		status, typ, msg = 504, "timeout_error", "upstream sent nothing for too long; stream aborted"
	case !errors.Is(err, io.EOF):
		msg = "upstream stream failed: " + err.Error()
	}
	w.Write(conv.fail(typ, msg))
	w.Flush()
	return status, msg
}

// idleReader cancels the upstream call when no byte arrives for idle.
type idleReader struct {
	r     io.Reader
	idle  time.Duration
	timer *time.Timer
	fired atomic.Bool
}

func newIdleReader(r io.Reader, idle time.Duration, cancel func()) *idleReader {
	ir := &idleReader{r: r, idle: idle}
	ir.timer = time.AfterFunc(idle, func() { ir.fired.Store(true); cancel() })
	return ir
}

func (ir *idleReader) Read(p []byte) (int, error) {
	n, err := ir.r.Read(p)
	if n > 0 {
		ir.timer.Reset(ir.idle)
	}
	return n, err
}

func (ir *idleReader) stop()          { ir.timer.Stop() }
func (ir *idleReader) timedOut() bool { return ir.fired.Load() }

// openaiRelay passes an OpenAI stream through byte for byte.
type openaiRelay struct {
	acc openai.Accumulator
}

func (o *openaiRelay) event(ev sse.Event) ([]byte, error) { return ev.Raw, o.observe(ev) }

func (o *openaiRelay) observe(ev sse.Event) error {
	if len(ev.Data) == 0 {
		return nil
	}
	err := o.acc.Add(ev.Data)
	var se *openai.StreamError
	if errors.As(err, &se) {
		return se
	}
	return nil // an unparsable chunk is still the upstream's to send
}

func (o *openaiRelay) complete() bool { return o.acc.Done() || o.acc.FinishReason() != "" }
func (o *openaiRelay) finish() []byte { return doneIfMissing(o.acc.Done()) }
func (o *openaiRelay) fail(typ, msg string) []byte {
	b := sse.AppendEvent(nil, "", openai.NewError(502, typ, typ, msg))
	return sse.AppendEvent(b, "", []byte("[DONE]"))
}
func (o *openaiRelay) response() response { return fromOpenAIAcc(&o.acc) }

func doneIfMissing(done bool) []byte {
	if done {
		return nil
	}
	return sse.AppendEvent(nil, "", []byte("[DONE]"))
}

// anthropicRelay passes a native Anthropic stream through byte for byte.
type anthropicRelay struct {
	acc anthropic.Accumulator
}

func (a *anthropicRelay) event(ev sse.Event) ([]byte, error) { return ev.Raw, a.observe(ev) }

func (a *anthropicRelay) observe(ev sse.Event) error {
	if len(ev.Data) == 0 {
		return nil
	}
	err := a.acc.Add(ev.Event, ev.Data)
	var se *anthropic.StreamError
	if errors.As(err, &se) {
		return se
	}
	return nil
}

func (a *anthropicRelay) complete() bool { return a.acc.Done() }
func (a *anthropicRelay) finish() []byte { return nil }
func (a *anthropicRelay) fail(typ, msg string) []byte {
	return sse.AppendEvent(nil, "error", anthropic.NewError(502, anthropicType(typ), msg))
}
func (a *anthropicRelay) response() response { return fromAnthropicMessage(a.acc.Message()) }

// anthropicFromOpenAI translates an OpenAI stream into Anthropic events.
type anthropicFromOpenAI struct {
	tr  *anthropic.StreamTranslator
	acc openai.Accumulator
}

func (a *anthropicFromOpenAI) event(ev sse.Event) ([]byte, error) {
	data := bytes.TrimSpace(ev.Data)
	switch {
	case len(data) == 0:
		return nil, nil
	case string(data) == "[DONE]":
		_ = a.acc.Add(data) // marks the record's stream complete
		return a.tr.Finish(), nil
	}
	// Read once, for the record and for the translation.
	c, err := openai.ParseStreamChunk(data)
	if err != nil {
		return nil, nil // a chunk neither can read is skipped
	}
	err = a.acc.AddChunk(&c)
	out := a.tr.AddChunk(&c)
	var se *openai.StreamError
	if errors.As(err, &se) {
		return out, se
	}
	return out, nil
}

func (a *anthropicFromOpenAI) complete() bool { return a.acc.Done() || a.acc.FinishReason() != "" }
func (a *anthropicFromOpenAI) finish() []byte { return a.tr.Finish() }
func (a *anthropicFromOpenAI) fail(typ, msg string) []byte {
	return a.tr.Error(anthropicType(typ), msg)
}
func (a *anthropicFromOpenAI) response() response { return fromOpenAIAcc(&a.acc) }

// anthropicType maps the proxy's error types to Anthropic's.
func anthropicType(typ string) string {
	if typ == "timeout_error" {
		return "timeout_error"
	}
	return "api_error"
}
