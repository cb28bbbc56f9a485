package bench

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"

	"github.com/tidwall/gjson"

	"github.com/metaclaw/metaclaw/store"
)

// maxCountedBody bounds how much of a JSON (non-streaming) response the
// relay keeps to read its usage.
const maxCountedBody = 8 << 20

// Relay forwards model calls to the person's provider (and to the other
// endpoints an arm's MetaClaw calls) and counts them per arm: calls that
// carry BenchHeader as the agent's, the others as MetaClaw's own learning
// calls (evolver, judge, memory extraction, embeddings). Bytes pass
// through as they come, streams included; the relay only reads the usage
// the provider reports. It listens on 127.0.0.1.
type Relay struct {
	srv *http.Server
	url string

	mu     sync.Mutex // guards the fields below
	routes map[string]relayRoute
	counts map[string]*[2]store.BenchUsage // arm → agent, learning
}

type relayRoute struct {
	arm    string
	target *url.URL
}

// NewRelay starts a relay on a free port.
func NewRelay() (*Relay, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("relay: %w", err)
	}
	r := &Relay{url: "http://" + ln.Addr().String(), routes: map[string]relayRoute{}, counts: map[string]*[2]store.BenchUsage{}}
	rp := &httputil.ReverseProxy{Rewrite: r.rewrite, ModifyResponse: r.count, ErrorLog: log.New(io.Discard, "", 0)}
	r.srv = &http.Server{Handler: rp}
	go r.srv.Serve(ln) //nolint:errcheck // ErrServerClosed at Close
	return r, nil
}

// Route returns the relay's base URL standing for base in arm's calls.
func (r *Relay) Route(arm, base string) (string, error) {
	u, err := url.Parse(strings.TrimRight(base, "/"))
	if err != nil || u.Scheme == "" || u.Host == "" {
		return "", fmt.Errorf("relay: %q is not a base URL", base)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	prefix := fmt.Sprintf("/r%d", len(r.routes)+1)
	r.routes[prefix] = relayRoute{arm: arm, target: u}
	if r.counts[arm] == nil {
		r.counts[arm] = &[2]store.BenchUsage{}
	}
	return r.url + prefix, nil
}

// Take returns the agent's and the learning calls counted for arm since
// the last Take.
func (r *Relay) Take(arm string) (agent, learning store.BenchUsage) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.counts[arm]
	if c == nil {
		return agent, learning
	}
	agent, learning = c[0], c[1]
	*c = [2]store.BenchUsage{}
	return agent, learning
}

// Close stops the relay.
func (r *Relay) Close() error { return r.srv.Close() }

func (r *Relay) route(path string) (string, relayRoute, bool) {
	prefix, _, _ := strings.Cut(strings.TrimPrefix(path, "/"), "/")
	r.mu.Lock()
	defer r.mu.Unlock()
	rt, ok := r.routes["/"+prefix]
	return "/" + prefix, rt, ok
}

// relayKey carries a request's arm and kind to count.
type relayKey struct{}

type relayCall struct {
	arm   string
	agent bool
}

func (r *Relay) rewrite(pr *httputil.ProxyRequest) {
	prefix, rt, ok := r.route(pr.In.URL.Path)
	if !ok {
		pr.Out.URL.Host = "" // answered 502 by the proxy
		return
	}
	pr.Out.URL.Scheme, pr.Out.URL.Host = rt.target.Scheme, rt.target.Host
	pr.Out.URL.Path = rt.target.Path + strings.TrimPrefix(pr.In.URL.Path, prefix)
	pr.Out.URL.RawPath = ""
	pr.Out.Host = rt.target.Host
	agent := pr.In.Header.Get(BenchHeader) != ""
	pr.Out.Header.Del(BenchHeader)
	pr.Out.Header.Del("X-Forwarded-For")
	if pr.In.Method == http.MethodPost {
		*pr.Out = *pr.Out.WithContext(withCall(pr.Out, relayCall{arm: rt.arm, agent: agent}))
	}
}

func (r *Relay) count(resp *http.Response) error {
	call, ok := callOf(resp.Request)
	if !ok {
		return nil
	}
	r.add(call, store.BenchUsage{Calls: 1})
	if resp.StatusCode >= 300 {
		return nil
	}
	stream := strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream")
	resp.Body = &usageReader{body: resp.Body, stream: stream, done: func(u store.BenchUsage) { r.add(call, u) }}
	return nil
}

func (r *Relay) add(call relayCall, u store.BenchUsage) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.counts[call.arm]
	if c == nil {
		return
	}
	i := 1
	if call.agent {
		i = 0
	}
	c[i].Calls += u.Calls
	c[i].PromptTokens += u.PromptTokens
	c[i].CompletionTokens += u.CompletionTokens
}

// usageReader passes a response body through and reads the usage it
// reports: from each SSE data line of a stream, or from the whole JSON
// body. Both OpenAI's (prompt_tokens, completion_tokens) and Anthropic's
// (input_tokens, output_tokens, also under message.usage) names count;
// the largest value seen wins, as Anthropic's streams repeat running
// totals.
type usageReader struct {
	body   io.ReadCloser
	stream bool
	buf    bytes.Buffer
	u      store.BenchUsage
	once   sync.Once
	done   func(store.BenchUsage)
}

func (u *usageReader) Read(p []byte) (int, error) {
	n, err := u.body.Read(p)
	if n > 0 && (u.stream || u.buf.Len() < maxCountedBody) {
		u.buf.Write(p[:n])
		if u.stream {
			u.scanLines()
		}
	}
	if errors.Is(err, io.EOF) {
		u.finish()
	}
	return n, err
}

func (u *usageReader) Close() error {
	u.finish()
	return u.body.Close()
}

// scanLines reads the complete lines buffered so far.
func (u *usageReader) scanLines() {
	for {
		line, err := u.buf.ReadBytes('\n')
		if err != nil {
			u.buf.Reset()
			u.buf.Write(line) // an incomplete line waits for the rest
			return
		}
		if data, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte("data:")); ok {
			u.note(bytes.TrimSpace(data))
		}
	}
}

func (u *usageReader) finish() {
	u.once.Do(func() {
		if u.stream {
			sc := bufio.NewScanner(&u.buf)
			for sc.Scan() {
				if data, ok := bytes.CutPrefix(bytes.TrimSpace(sc.Bytes()), []byte("data:")); ok {
					u.note(bytes.TrimSpace(data))
				}
			}
		} else {
			u.note(u.buf.Bytes())
		}
		u.done(u.u)
	})
}

func (u *usageReader) note(js []byte) {
	if len(js) == 0 || js[0] != '{' {
		return
	}
	res := gjson.GetManyBytes(js, "usage.prompt_tokens", "usage.input_tokens", "message.usage.input_tokens",
		"usage.completion_tokens", "usage.output_tokens", "message.usage.output_tokens")
	u.u.PromptTokens = max(u.u.PromptTokens, res[0].Int(), res[1].Int(), res[2].Int())
	u.u.CompletionTokens = max(u.u.CompletionTokens, res[3].Int(), res[4].Int(), res[5].Int())
}

func withCall(req *http.Request, c relayCall) context.Context {
	return context.WithValue(req.Context(), relayKey{}, c)
}

func callOf(req *http.Request) (relayCall, bool) {
	if req == nil {
		return relayCall{}, false
	}
	c, ok := req.Context().Value(relayKey{}).(relayCall)
	return c, ok
}
