package sse

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

// readAll reads every event until an error and returns them with that error.
func readAll(r *Reader) ([]Event, error) {
	var evs []Event
	for {
		ev, err := r.Next()
		if err != nil {
			return evs, err
		}
		evs = append(evs, ev)
	}
}

func TestReaderNext(t *testing.T) {
	tests := []struct {
		name  string
		input string
		opts  []Option
		want  []Event
	}{
		{
			name:  "single event lf",
			input: "event: ping\ndata: {\"a\":1}\n\n",
			want:  []Event{{Event: "ping", Data: []byte(`{"a":1}`), Raw: []byte("event: ping\ndata: {\"a\":1}\n\n")}},
		},
		{
			name:  "crlf endings",
			input: "data: a\r\ndata: b\r\n\r\n",
			want:  []Event{{Data: []byte("a\nb"), Raw: []byte("data: a\r\ndata: b\r\n\r\n")}},
		},
		{
			name:  "cr endings",
			input: "data: a\rdata: b\r\rdata: c\r\r",
			want: []Event{
				{Data: []byte("a\nb"), Raw: []byte("data: a\rdata: b\r\r")},
				{Data: []byte("c"), Raw: []byte("data: c\r\r")},
			},
		},
		{
			name:  "mixed endings",
			input: "data: a\r\ndata: b\rdata: c\n\r\n",
			want:  []Event{{Data: []byte("a\nb\nc"), Raw: []byte("data: a\r\ndata: b\rdata: c\n\r\n")}},
		},
		{
			name:  "comments ignored and folded into raw",
			input: ": keep-alive\n\n: hi\ndata: x\n\n",
			want:  []Event{{Data: []byte("x"), Raw: []byte(": keep-alive\n\n: hi\ndata: x\n\n")}},
		},
		{
			name:  "only one leading space stripped",
			input: "data:  two\ndata:none\n\n",
			want:  []Event{{Data: []byte(" two\nnone"), Raw: []byte("data:  two\ndata:none\n\n")}},
		},
		{
			name:  "field without colon",
			input: "data\ndata\n\n",
			want:  []Event{{Data: []byte("\n"), Raw: []byte("data\ndata\n\n")}},
		},
		{
			name:  "empty data dispatched",
			input: "data:\n\n",
			want:  []Event{{Data: []byte{}, Raw: []byte("data:\n\n")}},
		},
		{
			name:  "event without data not dispatched",
			input: "event: x\n\ndata: y\n\n",
			want:  []Event{{Data: []byte("y"), Raw: []byte("event: x\n\ndata: y\n\n")}},
		},
		{
			name:  "id and retry",
			input: "id: 7\nretry: 1500\nretry: 12x\ndata: z\n\n",
			want:  []Event{{ID: "7", Retry: 1500, Data: []byte("z"), Raw: []byte("id: 7\nretry: 1500\nretry: 12x\ndata: z\n\n")}},
		},
		{
			name:  "id with nul ignored",
			input: "id: a\x00b\ndata: z\n\n",
			want:  []Event{{Data: []byte("z"), Raw: []byte("id: a\x00b\ndata: z\n\n")}},
		},
		{
			name:  "unknown field ignored",
			input: "foo: bar\ndata: z\n\n",
			want:  []Event{{Data: []byte("z"), Raw: []byte("foo: bar\ndata: z\n\n")}},
		},
		{
			name:  "partial event at eof returned",
			input: "data: a\n\ndata: b\ndata: c",
			want: []Event{
				{Data: []byte("a"), Raw: []byte("data: a\n\n")},
				{Data: []byte("b\nc"), Raw: []byte("data: b\ndata: c")},
			},
		},
		{
			name:  "partial event without data at eof dropped",
			input: "data: a\n\nevent: b\n",
			want:  []Event{{Data: []byte("a"), Raw: []byte("data: a\n\n")}},
		},
		{
			name:  "bom stripped",
			input: "\xEF\xBB\xBFdata: a\n\n",
			want:  []Event{{Data: []byte("a"), Raw: []byte("\xEF\xBB\xBFdata: a\n\n")}},
		},
		{
			name:  "bom only at start",
			input: "data: a\n\n\xEF\xBB\xBFdata: b\n\n",
			want:  []Event{{Data: []byte("a"), Raw: []byte("data: a\n\n")}},
		},
		{
			name:  "empty events option",
			input: ": ping\n\nevent: x\n\n\n\ndata: y\n\n",
			opts:  []Option{WithEmptyEvents()},
			want: []Event{
				{Raw: []byte(": ping\n\n")},
				{Event: "x", Raw: []byte("event: x\n\n")},
				{Data: []byte("y"), Raw: []byte("\n\ndata: y\n\n")},
			},
		},
		{
			name:  "empty input",
			input: "",
		},
		{
			name:  "anthropic stream",
			input: "event: message_start\ndata: {\"type\":\"message_start\"}\n\nevent: ping\ndata: {\"type\": \"ping\"}\n\n",
			want: []Event{
				{Event: "message_start", Data: []byte(`{"type":"message_start"}`), Raw: []byte("event: message_start\ndata: {\"type\":\"message_start\"}\n\n")},
				{Event: "ping", Data: []byte(`{"type": "ping"}`), Raw: []byte("event: ping\ndata: {\"type\": \"ping\"}\n\n")},
			},
		},
	}
	for _, tt := range tests {
		readers := map[string]func(string) io.Reader{
			"whole":    func(s string) io.Reader { return strings.NewReader(s) },
			"one-byte": func(s string) io.Reader { return iotest.OneByteReader(strings.NewReader(s)) },
			"half":     func(s string) io.Reader { return iotest.HalfReader(strings.NewReader(s)) },
		}
		for rname, mk := range readers {
			t.Run(tt.name+"/"+rname, func(t *testing.T) {
				got, err := readAll(NewReader(mk(tt.input), tt.opts...))
				if err != io.EOF {
					t.Fatalf("final error = %v, want io.EOF", err)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("events mismatch (-want +got):\n%s", diff)
				}
			})
		}
	}
}

func TestReaderLastEventID(t *testing.T) {
	r := NewReader(strings.NewReader("id: 1\ndata: a\n\ndata: b\n\n"))
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	ev, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	if ev.ID != "" || r.LastEventID() != "1" {
		t.Errorf("ID = %q, LastEventID = %q; want \"\" and \"1\"", ev.ID, r.LastEventID())
	}
}

func TestReaderLimits(t *testing.T) {
	tests := []struct {
		name    string
		input   string
		opts    []Option
		wantErr error
		wantN   int
	}{
		{"line too long", "data: 0123456789\n\n", []Option{WithMaxLineSize(8)}, ErrLineTooLong, 0},
		{"line too long without terminator", strings.Repeat("x", 100), []Option{WithMaxLineSize(8)}, ErrLineTooLong, 0},
		{"line at limit ok", "data: 12\n\n", []Option{WithMaxLineSize(8)}, io.EOF, 1},
		{"line at limit with crlf ok", "data: 12\r\n\r\n", []Option{WithMaxLineSize(8)}, io.EOF, 1},
		{"event too large", "data: a\ndata: b\ndata: c\n\n", []Option{WithMaxEventSize(12)}, ErrEventTooLarge, 0},
		{"second event too large", "data: a\n\ndata: b\ndata: c\n\n", []Option{WithMaxEventSize(12)}, ErrEventTooLarge, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewReader(iotest.HalfReader(strings.NewReader(tt.input)), tt.opts...)
			got, err := readAll(r)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("error = %v, want %v", err, tt.wantErr)
			}
			if len(got) != tt.wantN {
				t.Errorf("got %d events, want %d", len(got), tt.wantN)
			}
			if _, err2 := r.Next(); !errors.Is(err2, tt.wantErr) {
				t.Errorf("error not sticky: %v", err2)
			}
		})
	}
}

func TestReaderUnderlyingError(t *testing.T) {
	boom := errors.New("boom")
	src := io.MultiReader(strings.NewReader("data: a\n\ndata: b"), iotest.ErrReader(boom))
	got, err := readAll(NewReader(src))
	if !errors.Is(err, boom) {
		t.Fatalf("error = %v, want boom", err)
	}
	if len(got) != 1 || string(got[0].Data) != "a" {
		t.Errorf("events = %+v", got)
	}
}

func TestReaderCRAtBufferBoundary(t *testing.T) {
	// A CR that is the last byte of a read must wait for the next read to
	// know whether an LF follows; the pair must count as one terminator.
	src := io.MultiReader(strings.NewReader("data: a\r"), strings.NewReader("\n\r\ndata: b\r"), strings.NewReader("\r"))
	got, err := readAll(NewReader(src))
	if err != io.EOF {
		t.Fatal(err)
	}
	want := []Event{
		{Data: []byte("a"), Raw: []byte("data: a\r\n\r\n")},
		{Data: []byte("b"), Raw: []byte("data: b\r\r")},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestReaderLongLinesGrowBuffer(t *testing.T) {
	long := strings.Repeat("x", 3*initialBufSize+17)
	input := "data: " + long + "\n\n" + "data: short\n\n"
	got, err := readAll(NewReader(iotest.HalfReader(strings.NewReader(input))))
	if err != io.EOF {
		t.Fatal(err)
	}
	if len(got) != 2 || string(got[0].Data) != long || string(got[1].Data) != "short" {
		t.Fatalf("unexpected events: %d", len(got))
	}
	var raw bytes.Buffer
	for _, ev := range got {
		raw.Write(ev.Raw)
	}
	if raw.String() != input {
		t.Error("concatenated Raw differs from input")
	}
}

// pausingSource hands out its input one byte a read and returns ErrWait
// before every byte, as a relay's source does while it holds bytes.
type pausingSource struct {
	in     []byte
	paused bool
}

func (p *pausingSource) Read(b []byte) (int, error) {
	if len(p.in) == 0 {
		return 0, io.EOF
	}
	if p.paused = !p.paused; p.paused {
		return 0, ErrWait
	}
	n := copy(b[:1], p.in)
	p.in = p.in[n:]
	return n, nil
}

// TestReaderErrWait: a source that pauses before every byte (a BOM, CR
// line ends and a CR split from its LF included) yields the same events as
// the whole input read at once; each pause comes back from Next and the
// call after it goes on.
func TestReaderErrWait(t *testing.T) {
	input := "\xEF\xBB\xBFevent: a\r\ndata: 1\r\n\r\n: comment\n\nid: 7\ndata: 2\ndata: 3\r\rdata: tail"
	want, err := readAll(NewReader(strings.NewReader(input)))
	if err != io.EOF || len(want) != 3 {
		t.Fatalf("whole input: %d events, %v", len(want), err)
	}
	r := NewReader(&pausingSource{in: []byte(input)})
	var got []Event
	pauses := 0
	for {
		ev, err := r.Next()
		if errors.Is(err, ErrWait) {
			pauses++
			continue
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ev)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events differ (-whole +paused):\n%s", diff)
	}
	if pauses < len(input)-1 {
		t.Errorf("%d pauses came back from Next for %d bytes", pauses, len(input))
	}
}
