package sse

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// DefaultMaxLineSize is the longest line (excluding its terminator) a Reader
// accepts unless configured otherwise.
const DefaultMaxLineSize = 8 << 20

// DefaultMaxEventSize is the largest raw event a Reader accepts unless
// configured otherwise.
const DefaultMaxEventSize = 32 << 20

// ErrLineTooLong is returned (wrapped) by Reader.Next when a line exceeds
// the configured maximum line size.
var ErrLineTooLong = errors.New("sse: line too long")

// ErrEventTooLarge is returned (wrapped) by Reader.Next when the raw bytes
// of one event exceed the configured maximum event size.
var ErrEventTooLarge = errors.New("sse: event too large")

// ErrWait, returned by a Reader's source instead of waiting for input,
// pauses Next: Next returns it and keeps what it has read, and the next
// call carries on where this one stopped. A relay's source returns it
// while the relay holds bytes its client has not got, so that Next never
// waits for the upstream before they leave.
var ErrWait = errors.New("sse: source would wait")

const initialBufSize = 4096

var bom = []byte("\xEF\xBB\xBF")

// Event is one dispatched server-sent event.
type Event struct {
	// Event is the value of the last "event" field, or "" when there was
	// none (the SSE default type "message" is not substituted).
	Event string
	// Data is the value of all "data" fields joined with "\n".
	Data []byte
	// ID is the value of the last "id" field in this event ("" if none);
	// see Reader.LastEventID for the persistent last event ID.
	ID string
	// Retry is the value of the last valid "retry" field in milliseconds,
	// or 0 when the event had none.
	Retry int
	// Raw is the exact bytes consumed from the stream for this event,
	// including its blank-line terminator and any comment-only or empty
	// blocks that preceded it and were not dispatched on their own.
	Raw []byte
}

// Option configures a Reader.
type Option func(*Reader)

// WithMaxLineSize sets the longest accepted line in bytes (default
// DefaultMaxLineSize). Values < 1 keep the default.
func WithMaxLineSize(n int) Option {
	return func(r *Reader) {
		if n > 0 {
			r.maxLine = n
		}
	}
}

// WithMaxEventSize sets the largest accepted raw event in bytes (default
// DefaultMaxEventSize). Values < 1 keep the default.
func WithMaxEventSize(n int) Option {
	return func(r *Reader) {
		if n > 0 {
			r.maxEvent = n
		}
	}
}

// WithEmptyEvents makes Next also return blocks that carry no data field
// (for example ": keep-alive" comments or an "event:" line alone) as events
// with nil Data, so a relay can forward heartbeats immediately. Runs of
// blank lines with nothing between them are still folded into the next
// event's Raw.
func WithEmptyEvents() Option {
	return func(r *Reader) { r.emitEmpty = true }
}

// Reader reads events from a text/event-stream incrementally. It is not
// safe for concurrent use.
type Reader struct {
	src       io.Reader
	buf       []byte
	start     int // first unread byte in buf
	end       int // end of valid data in buf
	eof       bool
	err       error // sticky error, returned once buffered data is used up
	bomDone   bool
	skip      int // bytes at buf[start:] that belong to raw but not to the line (a BOM)
	scanned   int // bytes of the current line already searched for a terminator
	maxLine   int
	maxEvent  int
	emitEmpty bool
	lastID    string
	cur       pending
}

// pending is the event being assembled.
type pending struct {
	raw     []byte
	data    []byte
	event   string
	id      string
	retry   int
	hasData bool
	lines   int // non-blank lines seen in the current block
}

// NewReader returns a Reader reading from src.
func NewReader(src io.Reader, opts ...Option) *Reader {
	r := &Reader{src: src, maxLine: DefaultMaxLineSize, maxEvent: DefaultMaxEventSize}
	for _, o := range opts {
		o(r)
	}
	return r
}

// Buffered returns how many bytes the Reader has read from its source and
// not yet used: when it is 0, the next call of Next reads the source.
func (r *Reader) Buffered() int { return r.end - r.start }

// LastEventID returns the last event ID set by an "id" field so far, as
// defined by the SSE specification (it persists across events).
func (r *Reader) LastEventID() string { return r.lastID }

// Next returns the next event. At the end of the stream it returns an event
// still being assembled if it carried data, and io.EOF afterwards. Errors
// other than io.EOF from the underlying reader are returned as is; a line
// or event over the configured limits yields an error wrapping
// ErrLineTooLong or ErrEventTooLarge. After an error Next keeps returning it,
// but for ErrWait from the source (see ErrWait).
func (r *Reader) Next() (Event, error) {
	if r.err != nil {
		return Event{}, r.err
	}
	for {
		line, rawLen, err := r.readLine()
		if err == io.EOF {
			return r.finishAtEOF()
		}
		if errors.Is(err, ErrWait) {
			return Event{}, err // not sticky: the next call goes on
		}
		if err != nil {
			r.err = err
			return Event{}, err
		}
		if err := r.appendRaw(rawLen); err != nil {
			r.err = err
			return Event{}, err
		}
		if len(line) == 0 {
			if ev, ok := r.dispatch(); ok {
				return ev, nil
			}
			continue
		}
		r.cur.lines++
		r.processLine(line)
	}
}

// finishAtEOF handles the end of the stream.
func (r *Reader) finishAtEOF() (Event, error) {
	r.err = io.EOF
	if r.cur.hasData || (r.emitEmpty && r.cur.lines > 0) {
		ev := r.build()
		r.cur = pending{}
		return ev, nil
	}
	r.cur = pending{}
	return Event{}, io.EOF
}

// appendRaw copies the n bytes just consumed (ending at r.start) to the raw
// buffer of the pending event.
func (r *Reader) appendRaw(n int) error {
	if len(r.cur.raw)+n > r.maxEvent {
		return fmt.Errorf("sse: event exceeds %d bytes: %w", r.maxEvent, ErrEventTooLarge)
	}
	r.cur.raw = append(r.cur.raw, r.buf[r.start-n:r.start]...)
	return nil
}

// dispatch is called on a blank line. It reports whether an event is ready.
func (r *Reader) dispatch() (Event, bool) {
	if !r.cur.hasData && !(r.emitEmpty && r.cur.lines > 0) {
		// Nothing to dispatch: keep the raw bytes for the next event.
		r.cur = pending{raw: r.cur.raw}
		return Event{}, false
	}
	ev := r.build()
	r.cur = pending{}
	return ev, true
}

// build converts the pending event into an Event.
func (r *Reader) build() Event {
	ev := Event{Event: r.cur.event, ID: r.cur.id, Retry: r.cur.retry, Raw: r.cur.raw}
	if r.cur.hasData {
		ev.Data = r.cur.data
		if ev.Data == nil {
			ev.Data = []byte{}
		}
	}
	return ev
}

// processLine interprets one non-blank line.
func (r *Reader) processLine(line []byte) {
	if line[0] == ':' {
		return // comment
	}
	field, value := line, []byte(nil)
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		field, value = line[:i], line[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	switch string(field) {
	case "event":
		r.cur.event = string(value)
	case "data":
		if r.cur.hasData {
			r.cur.data = append(r.cur.data, '\n')
		}
		r.cur.data = append(r.cur.data, value...)
		r.cur.hasData = true
	case "id":
		if bytes.IndexByte(value, 0) < 0 {
			r.cur.id = string(value)
			r.lastID = r.cur.id
		}
	case "retry":
		if n, ok := parseRetry(value); ok {
			r.cur.retry = n
		}
	}
}

// parseRetry accepts a value made of ASCII digits only.
func parseRetry(v []byte) (int, bool) {
	if len(v) == 0 {
		return 0, false
	}
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(string(v))
	if err != nil {
		return 0, false
	}
	return n, true
}
