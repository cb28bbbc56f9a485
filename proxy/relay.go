package proxy

import (
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

// observer is a streamConv that relays every event byte for byte; the
// relay hands the event to the client first and lets the converter read it
// after, so parsing never delays the client.
type observer interface {
	observe(ev sse.Event) error
}

// streamRelay is the body of a streamed answer. Fasthttp's server reads it
// on the connection's own goroutine and sends each read as one chunk,
// flushed at once, so an event goes from the upstream's connection to the
// client's without changing goroutines. A read returns every event already
// in hand and never waits for the upstream while it holds bytes the client
// has not got: one event arriving alone leaves at once, several arriving
// together leave in one write. The relay ends when the upstream ends,
// fails or goes silent for longer than idle; Close (the server's, once the
// client has the last bytes or went away) cancels the upstream call and
// reports the turn's status and error text for recording.
type streamRelay struct {
	body       io.Closer
	conv       streamConv
	obs        observer // conv, when it passes events through unchanged
	ir         *idleReader
	rd         *sse.Reader
	cancel     func()
	onFirst    func()
	onEnd      func(status int, msg string)
	out        []byte      // bytes for the client
	off        int         // how many of out were read
	unobserved []sse.Event // passed through, not yet observed
	streamErr  error       // the first failure the upstream reported in the stream
	done       bool        // the stream ended; out holds its last bytes
	eof        bool        // the client was given everything
	closed     bool
	status     int
	msg        string
}

func newStreamRelay(body io.ReadCloser, conv streamConv, idle time.Duration, cancel, onFirst func(), onEnd func(int, string)) *streamRelay {
	s := &streamRelay{body: body, conv: conv, cancel: cancel, onFirst: onFirst, onEnd: onEnd}
	s.obs, _ = conv.(observer)
	s.ir = newIdleReader(body, idle, cancel)
	s.rd = sse.NewReader(waitWhileHeld{s})
	return s
}

// waitWhileHeld is the relay's source: it will not read the upstream,
// which may wait, while the relay holds bytes the client has not got.
type waitWhileHeld struct{ s *streamRelay }

func (w waitWhileHeld) Read(p []byte) (int, error) {
	if w.s.off < len(w.s.out) {
		return 0, sse.ErrWait
	}
	return w.s.ir.Read(p)
}

func (s *streamRelay) Read(p []byte) (int, error) {
	s.observe() // what the previous read returned is on its way
	if s.off == len(s.out) {
		s.out, s.off = s.out[:0], 0
		for len(s.out) == 0 && !s.done {
			s.next()
		}
		if len(s.out) == 0 {
			s.eof = true
			return 0, io.EOF
		}
		if s.onFirst != nil {
			s.onFirst()
			s.onFirst = nil
		}
	}
	n := copy(p, s.out[s.off:])
	s.off += n
	return n, nil
}

// next reads upstream events into out until the source would wait with
// bytes in hand, or the stream ends.
func (s *streamRelay) next() {
	for {
		ev, err := s.rd.Next()
		if errors.Is(err, sse.ErrWait) {
			return
		}
		if err != nil {
			s.observe()
			s.end(err)
			return
		}
		if s.obs != nil {
			s.out = append(s.out, ev.Raw...)
			s.unobserved = append(s.unobserved, ev)
			continue
		}
		b, convErr := s.conv.event(ev)
		s.out = append(s.out, b...)
		s.noteErr(convErr)
	}
}

func (s *streamRelay) observe() {
	for _, ev := range s.unobserved {
		s.noteErr(s.obs.observe(ev))
	}
	clear(s.unobserved)
	s.unobserved = s.unobserved[:0]
}

// noteErr keeps the first failure the upstream reported in the stream: it
// is relayed as the upstream sent it and recorded at the end.
func (s *streamRelay) noteErr(err error) {
	if err != nil && s.streamErr == nil {
		s.streamErr = err
	}
}

// end handles the end of the upstream body: a clean end (with the answer
// complete) or a failure, which the client sees as an error event.
func (s *streamRelay) end(err error) {
	s.done = true
	s.ir.stop()
	switch {
	case s.streamErr != nil:
		s.out = append(s.out, s.conv.finish()...)
		s.status, s.msg = 502, "upstream error in stream: "+s.streamErr.Error()
	case errors.Is(err, io.EOF) && s.conv.complete():
		s.out = append(s.out, s.conv.finish()...)
		s.status = 200
	default:
		status, typ, msg := 502, "upstream_error", "upstream stream ended before the answer was complete"
		switch {
		case s.ir.timedOut():
			status, typ, msg = 504, "timeout_error", "upstream sent nothing for too long; stream aborted"
		case !errors.Is(err, io.EOF):
			msg = "upstream stream failed: " + err.Error()
		}
		s.out = append(s.out, s.conv.fail(typ, msg)...)
		s.status, s.msg = status, msg
	}
}

// Close ends the relay once, whether the client got everything or left:
// a client that left before the answer's end makes the turn a 499.
func (s *streamRelay) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	s.ir.stop()
	s.cancel()
	s.body.Close()
	s.observe()
	if !s.eof && (!s.done || s.status == 200) {
		s.status, s.msg = 499, "client disconnected"
	}
	s.onEnd(s.status, s.msg)
	return nil
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
