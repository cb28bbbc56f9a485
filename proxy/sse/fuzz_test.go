package sse

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// normaliseData mirrors what a Reader returns for data written by
// AppendEvent: every line ending becomes "\n".
func normaliseData(b []byte) []byte {
	return bytes.Join(splitLines(b), []byte("\n"))
}

func FuzzReader(f *testing.F) {
	f.Add([]byte("event: a\ndata: b\n\n"), "message_start", []byte(`{"type":"x"}`), "", []byte("two\nlines"))
	f.Add([]byte("data: a\r\n\r\n:c\rdata:b\r\r"), "", []byte(""), "e\r\n", []byte("\r\r\n"))
	f.Add([]byte("\xEF\xBB\xBFid: 1\nretry: 10\n\n"), "ping", []byte("\xEF\xBB\xBF"), "x", []byte{})
	f.Fuzz(func(t *testing.T, raw []byte, ev1 string, d1 []byte, ev2 string, d2 []byte) {
		// Arbitrary input never panics, and Raw always reassembles a prefix
		// of the input.
		r := NewReader(iotest.HalfReader(bytes.NewReader(raw)), WithMaxLineSize(64))
		var joined []byte
		for {
			ev, err := r.Next()
			if err != nil {
				break
			}
			joined = append(joined, ev.Raw...)
		}
		if !bytes.HasPrefix(raw, joined) {
			t.Fatalf("concatenated Raw %q is not a prefix of input %q", joined, raw)
		}

		// Events written with AppendEvent read back equal.
		stream := AppendEvent(nil, ev1, d1)
		first := len(stream)
		stream = AppendEvent(stream, ev2, d2)
		rd := NewReader(iotest.OneByteReader(bytes.NewReader(stream)))
		checkRoundTrip(t, rd, ev1, d1, stream[:first])
		checkRoundTrip(t, rd, ev2, d2, stream[first:])
		if _, err := rd.Next(); err != io.EOF {
			t.Fatalf("after two events: err = %v, want io.EOF", err)
		}
	})
}

func checkRoundTrip(t *testing.T, r *Reader, name string, data, raw []byte) {
	t.Helper()
	got, err := r.Next()
	if err != nil {
		t.Fatalf("Next: %v", err)
	}
	wantName := strings.NewReplacer("\r", "", "\n", "").Replace(name)
	if got.Event != wantName {
		t.Errorf("event = %q, want %q", got.Event, wantName)
	}
	if want := normaliseData(data); !bytes.Equal(got.Data, want) {
		t.Errorf("data = %q, want %q", got.Data, want)
	}
	if !bytes.Equal(got.Raw, raw) {
		t.Errorf("raw = %q, want %q", got.Raw, raw)
	}
}
