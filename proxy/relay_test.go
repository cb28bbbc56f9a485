package proxy

import (
	"bufio"
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

// TestRelayCoalescesBursts: events that arrive together reach the client
// in one write, before the relay waits for more; an event that arrives
// alone is sent at once, while the upstream is still open.
func TestRelayCoalescesBursts(t *testing.T) {
	chunk := func(s string) string {
		return `data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"` + s + `"}}]}` + "\n\n"
	}
	pr, pw := io.Pipe()
	log := &writeLog{}
	w := bufio.NewWriter(log)
	firsts := 0
	conv := &openaiRelay{}
	done := make(chan int)
	go func() {
		status, _ := relay(w, pr, conv, time.Minute, func() {}, func() { firsts++ })
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
	io.WriteString(pw, "data: [DONE]\n\n")
	pw.Close()
	if status := <-done; status != 200 {
		t.Fatalf("status %d", status)
	}
	all := strings.Join(log.waitFor(t, 3), "")
	if all != burst+chunk("d")+"data: [DONE]\n\n" || firsts != 1 {
		t.Errorf("client got %q, first byte noted %d times", all, firsts)
	}
	if r := conv.response(); r.text != "abcd" {
		t.Errorf("recorded %q", r.text)
	}
}

// TestRelayClientGoneWhileBuffered: a client that left is noticed by the
// flush before the next read, and the stream ends as a 499.
func TestRelayClientGoneWhileBuffered(t *testing.T) {
	body := strings.NewReader(`data: {"choices":[{"index":0,"delta":{"content":"x"}}]}` + "\n\n" + `data: {"choices":[{"index":0,"delta":{"content":"y"}}]}` + "\n\n")
	w := bufio.NewWriter(failingWriter{})
	cancelled := false
	status, msg := relay(w, body, &openaiRelay{}, time.Minute, func() { cancelled = true }, func() {})
	if status != 499 || msg != "client disconnected" || !cancelled {
		t.Errorf("relay to a gone client = %d %q, cancelled %v", status, msg, cancelled)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, io.ErrClosedPipe }
