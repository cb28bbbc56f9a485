package proxy_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/metaclaw/metaclaw/proxy"
	"github.com/metaclaw/metaclaw/proxy/fakeupstream"
	"github.com/metaclaw/metaclaw/store/config"
)

// dial opens a raw connection to the proxy.
func (e *env) dial() net.Conn {
	e.t.Helper()
	c, err := net.Dial("tcp", e.srv.Addr())
	must(e.t, err)
	e.t.Cleanup(func() { c.Close() })
	return c
}

// readAnswer reads one HTTP response from c and returns its status and
// body.
func readAnswer(t *testing.T, c net.Conn, req *http.Request) (int, []byte, http.Header, error) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, resp.Header, err
}

// TestEarlyAnswersReachTheClient sends bodies the proxy refuses before
// reading them, and keeps sending while the proxy answers: the client must
// still read the answer, in the route's shape, not a connection reset.
func TestEarlyAnswersReachTheClient(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withConfig(func(c *config.Config) { must(t, c.Set("proxy.max_body_bytes", "1048576")) }))
	big := bytes.Repeat([]byte("x"), 24<<20)
	tests := []struct {
		name, path, head string
		body             []byte
		status           int
		api              string
	}{
		{"413 declared length", "/v1/messages", fmt.Sprintf("Content-Type: application/json\r\nContent-Length: %d\r\n", len(big)),
			big, 413, "anthropic"},
		{"413 chunked", "/v1/messages", "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n",
			chunked(big), 413, "anthropic"},
		{"413 chunked openai", "/v1/chat/completions", "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n",
			chunked(big), 413, "openai"},
		{"403 page with a body", "/v1/chat/completions", fmt.Sprintf("Origin: http://evil.example\r\nContent-Length: %d\r\n", len(big)),
			big, 403, "openai"},
		{"431 headers too large", "/v1/messages", "X-Baggage: " + strings.Repeat("b", 100<<10) + "\r\nContent-Length: 2\r\n",
			[]byte("{}"), 431, "anthropic"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := e.dial()
			fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\n%s\r\n", tt.path, tt.head)
			// Keep writing, as a client uploading a body does, and only
			// then read the answer. The proxy reads and drops what it
			// refused instead of resetting the connection.
			c.SetWriteDeadline(time.Now().Add(5 * time.Second))
			if _, err := c.Write(tt.body); err != nil {
				t.Errorf("the proxy reset the connection while the body was sent: %v", err)
			}
			status, body, _, err := readAnswer(t, c, &http.Request{Method: "POST"})
			if err != nil {
				t.Fatalf("the answer was lost: %v", err)
			}
			if status != tt.status {
				t.Errorf("status %d, want %d: %s", status, tt.status, body)
			}
			checkShape(t, tt.api, body, "")
		})
	}
}

// chunked encodes b in 64 KiB chunks.
func chunked(b []byte) []byte {
	var out bytes.Buffer
	for len(b) > 0 {
		n := min(len(b), 64<<10)
		fmt.Fprintf(&out, "%x\r\n%s\r\n", n, b[:n])
		b = b[n:]
	}
	out.WriteString("0\r\n\r\n")
	return out.Bytes()
}

func TestLargeHeadersAccepted(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	jwt := strings.Repeat("eyJhbGciOi", 3300) // 33 000 characters
	status, body, _ := e.raw("POST", "/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`,
		"Content-Type", "application/json", "Authorization", "Bearer "+jwt, "Baggage", strings.Repeat("k=v,", 500))
	if status != 200 {
		t.Errorf("33 KB of headers = %d %s", status, body)
	}
}

func TestMethodNotAllowedInTheRoutesShape(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, tt := range []struct{ path, api string }{{"/v1/messages", "anthropic"}, {"/v1/chat/completions", "openai"}} {
		status, body, h := e.raw("GET", tt.path, "")
		if status != 405 || h.Get("Allow") != "POST" {
			t.Errorf("GET %s = %d (Allow %q) %s", tt.path, status, h.Get("Allow"), body)
		}
		checkShape(t, tt.api, body, "")
	}
	if n := len(e.up.Requests()); n != 0 {
		t.Errorf("%d requests relayed", n)
	}
}

func TestCompressedBodiesAreBounded(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withConfig(func(c *config.Config) { must(t, c.Set("proxy.max_body_bytes", "1048576")) }))
	chat := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	status, body, _ := e.raw("POST", "/v1/chat/completions", string(gzipped([]byte(chat))),
		"Content-Type", "application/json", "Content-Encoding", "gzip")
	if status != 200 {
		t.Errorf("gzip body = %d %s", status, body)
	}
	// 8 MB of spaces, 8 KB compressed: over the limit once decoded.
	bomb := gzipped([]byte(`{"model":"m","messages":[],"x":"` + strings.Repeat(" ", 8<<20) + `"}`))
	status, body, _ = e.raw("POST", "/v1/messages", string(bomb), "Content-Type", "application/json", "Content-Encoding", "gzip")
	if status != 413 {
		t.Errorf("gzip bomb = %d %s", status, body)
	}
	checkShape(t, "anthropic", body, "")
	status, body, _ = e.raw("POST", "/v1/messages", chat, "Content-Type", "application/json", "Content-Encoding", "compress")
	if status != 415 {
		t.Errorf("unknown encoding = %d %s", status, body)
	}
}

// TestSlowHeadersAreCut holds a connection open by sending headers slowly:
// the proxy closes it after its header timeout.
func TestSlowHeadersAreCut(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(_ *config.Config, o *proxy.Options) { o.HeaderTimeout = 300 * time.Millisecond })
	c := e.dial()
	fmt.Fprintf(c, "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n")
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err := io.ReadAll(c) // the proxy answers 408 or just closes
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatal("the proxy still held the connection after 5 s")
	}
}

func TestConnectionsPerAddressCapped(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withConfig(func(c *config.Config) { must(t, c.Set("proxy.max_connections_per_address", "3")) }))
	get := "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
	for range 3 { // three kept-alive connections
		c := e.dial()
		io.WriteString(c, get)
		if status, body, _, err := readAnswer(t, c, &http.Request{Method: "GET"}); err != nil || status != 200 {
			t.Fatalf("connection under the cap = %d %s %v", status, body, err)
		}
	}
	c := e.dial()
	io.WriteString(c, get)
	status, body, h, err := readAnswer(t, c, &http.Request{Method: "GET"})
	if err != nil || status != 429 || h.Get("Retry-After") == "" {
		t.Fatalf("connection over the cap = %d %v %s %v", status, h, body, err)
	}
	checkShape(t, "openai", body, "")
}

// TestInflightBudget holds one large request in flight (its streamed
// answer waits) and shows that the next one waits, then gets 503 with
// Retry-After in its API's shape, and that once the first has finished the
// budget is empty again and requests pass.
func TestInflightBudget(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withConfig(func(c *config.Config) { must(t, c.Set("proxy.max_inflight_bytes", "1048576")) }))
	hold := make(chan struct{})
	e.up.Enqueue(fakeupstream.Reply{Text: "held answer", HoldAfterFirst: hold})
	pad := strings.Repeat("a", 300<<10) // 300 KB: counted three times, 900 KB of the 1 MiB
	large := func(stream bool) string {
		return fmt.Sprintf(`{"model":"m","max_tokens":9,"stream":%v,"messages":[{"role":"user","content":"%s"}]}`, stream, pad)
	}
	first, err := http.Post(e.url+"/v1/chat/completions", "application/json", strings.NewReader(large(true)))
	must(t, err)
	bufio.NewReader(first.Body).ReadString('\n') // the first event: the request is in flight
	for _, tt := range []struct{ path, api string }{{"/v1/chat/completions", "openai"}, {"/v1/messages", "anthropic"}} {
		status, body, h := e.raw("POST", tt.path, large(false), "Content-Type", "application/json")
		if status != 503 || h.Get("Retry-After") == "" {
			t.Errorf("%s over the budget = %d (Retry-After %q) %s", tt.path, status, h.Get("Retry-After"), body)
		}
		checkShape(t, tt.api, body, "")
	}
	small := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	if status, body, _ := e.raw("POST", "/v1/chat/completions", small, "Content-Type", "application/json"); status != 200 {
		t.Errorf("a small request beside it = %d %s", status, body)
	}
	// A large request waiting when the first finishes gets in.
	var wg sync.WaitGroup
	var waited int
	wg.Go(func() { waited, _, _ = e.raw("POST", "/v1/messages", large(false), "Content-Type", "application/json") })
	time.Sleep(200 * time.Millisecond)
	close(hold)
	io.Copy(io.Discard, first.Body)
	first.Body.Close()
	wg.Wait()
	if waited != 200 {
		t.Errorf("the waiting request = %d, want 200", waited)
	}
	e.turns(3)
	deadline := time.Now().Add(5 * time.Second)
	for inflight(t, e) != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d bytes still counted in flight after every request ended", inflight(t, e))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func inflight(t *testing.T, e *env) int {
	t.Helper()
	status, body, _ := e.raw("GET", "/healthz", "")
	var h struct {
		Inflight *int `json:"inflight_bytes"`
	}
	if err := json.Unmarshal(body, &h); status != 200 || err != nil || h.Inflight == nil {
		t.Fatalf("healthz = %d %s", status, body)
	}
	return *h.Inflight
}

func gzipped(b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}
