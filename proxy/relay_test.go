package proxy

import (
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// writeLog records each write that reaches the client's connection, that
// is each flush of the relay's writer.
type writeLog struct {
	mu     sync.Mutex
	writes []string
}

func (l *writeLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.writes = append(l.writes, string(p))
	return len(p), nil
}

func (l *writeLog) waitFor(t *testing.T, n int) []string {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		l.mu.Lock()
		w := append([]string(nil), l.writes...)
		l.mu.Unlock()
		if len(w) >= n {
			return w
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d writes reached the client, want %d: %q", len(w), n, w)
		}
	}
}

// serve reads the relay as fasthttp's server reads a body stream of
// unknown length: each read is one chunk, written and flushed to the
// client before the next read, and the stream is closed at the end or on
// the first failed write. It returns the status the relay reported.
func serve(r *streamRelay, client io.Writer, status *int) {
	buf := make([]byte, 4096)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			if _, werr := client.Write(buf[:n]); werr != nil {
				break
			}
		}
		if err != nil {
			break
		}
	}
	r.Close()
}

func testRelay(body io.Reader, conv streamConv, cancel, onFirst func(), status *int) *streamRelay {
	return newStreamRelay(io.NopCloser(body), conv, time.Minute, cancel, onFirst, func(st int, _ string) { *status = st })
}

// TestRelayCoalescesBursts: events that arrive together reach the client
// in one write, before the relay waits for more; an event that arrives
// alone is sent at once, while the upstream is still open.
func TestRelayCoalescesBursts(t *testing.T) {
	chunk := func(s string) string {
		return `data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"` + s + `"}}]}` + "\n\n"
	}
	pr, pw := io.Pipe()
	log := &writeLog{}
	firsts := 0
	conv := &openaiRelay{}
	done := make(chan int)
	go func() {
		var status int
		serve(testRelay(pr, conv, func() {}, func() { firsts++ }, &status), log, &status)
		done <- status
	}()
	burst := chunk("a") + chunk("b") + chunk("c")
	io.WriteString(pw, burst) // one read gets all three
	if got := log.waitFor(t, 1); got[0] != burst {
		t.Fatalf("first write %q, want the whole burst", got[0])
	}
	io.WriteString(pw, chunk("d")) // alone: sent before the upstream goes on
	if got := log.waitFor(t, 2); got[1] != chunk("d") {
		t.Fatalf("second write %q", got[1])
	}
	io.WriteString(pw, chunk("e")[:20]) // half an event: nothing to send yet
	time.Sleep(20 * time.Millisecond)
	if got := log.waitFor(t, 2); len(got) != 2 {
		t.Fatalf("half an event was sent: %q", got[2:])
	}
	io.WriteString(pw, chunk("e")[20:]+"data: [DONE]\n\n")
	pw.Close()
	if status := <-done; status != 200 {
		t.Fatalf("status %d", status)
	}
	all := strings.Join(log.waitFor(t, 3), "")
	if all != burst+chunk("d")+chunk("e")+"data: [DONE]\n\n" || firsts != 1 {
		t.Errorf("client got %q, first byte noted %d times", all, firsts)
	}
	if r := conv.response(); r.text != "abcde" {
		t.Errorf("recorded %q", r.text)
	}
}

// TestRelayClientGoneWhileBuffered: a client that left is noticed by the
// failed write, and the stream ends as a 499 with the upstream cancelled.
func TestRelayClientGoneWhileBuffered(t *testing.T) {
	body := strings.NewReader(`data: {"choices":[{"index":0,"delta":{"content":"x"}}]}` + "\n\n" + `data: {"choices":[{"index":0,"delta":{"content":"y"}}]}` + "\n\n")
	cancelled := false
	var status int
	serve(testRelay(body, &openaiRelay{}, func() { cancelled = true }, func() {}, &status), failingWriter{}, &status)
	if status != 499 || !cancelled {
		t.Errorf("relay to a gone client = %d, cancelled %v", status, cancelled)
	}
}

// TestRelayClientGoneAtTheEnd: a client that does not take the last bytes
// of a complete answer is still a 499, not an answer delivered.
func TestRelayClientGoneAtTheEnd(t *testing.T) {
	body := strings.NewReader(`data: {"choices":[{"index":0,"delta":{"content":"x"},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n")
	var status int
	r := testRelay(body, &openaiRelay{}, func() {}, func() {}, &status)
	buf := make([]byte, 4096)
	if n, err := r.Read(buf); n == 0 || err != nil {
		t.Fatalf("first read %d %v", n, err)
	}
	r.Close() // the write of those bytes failed
	if status != 499 {
		t.Errorf("status %d, want 499", status)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, io.ErrClosedPipe }
