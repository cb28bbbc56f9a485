package proxy_test

// Benchmarks of the proxy's hot path against the in-process fake provider:
// the same requests are sent straight to the fake (BenchmarkDirect) and
// through the proxy (BenchmarkProxy), and the difference is what the proxy
// adds. The proxy runs as MetaClaw runs it: a real SQLite store as the
// recorder (in b.TempDir()) and a skills injector, so injection is on for
// every request (all are main turns). Everything shares one process and its
// cores with the load generator; `make bench` also runs the cross-process
// BenchmarkProxyRSSUnderLoad in app/cmd/metaclaw.
//
// Each sub-benchmark sends exactly b.N requests and reports, besides ns/op
// (wall time per request, so 1/throughput at c32):
//
//	p50-us, p99-us           per-request latency, whole body read
//	req/s                    requests completed per second
//	ttfb-p50-us, ttfb-p99-us streaming: time to the first SSE data line
//
// Run with, e.g.:
//
//	go test -run '^$' -bench '^Benchmark(Direct|Proxy)$' -benchtime 5000x -count 3 ./proxy/

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/metaclaw/metaclaw/proxy"
	"github.com/metaclaw/metaclaw/proxy/fakeupstream"
	"github.com/metaclaw/metaclaw/proxy/learning"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
)

// benchSystem is the system prompt of the benchmark conversation.
const benchSystem = "You are a coding agent working in the user's repository. You can read and edit files, " +
	"run shell commands and search the web. Prefer small, reviewable changes; explain what you changed and why. " +
	"Never run destructive commands without asking. When a test fails, read the failure before changing code. " +
	"Keep answers short unless the user asks for detail. The repository is a Go module; run go vet and the tests " +
	"of the packages you touch before you report a change as done, and mention anything you could not verify. " +
	"Use the project's existing style, naming and error handling; do not add dependencies without a reason. " +
	"Cite file paths with line numbers when you refer to code."

// benchMessages is a small, realistic agent conversation: a system prompt
// and a few user/assistant turns.
var benchMessages = []struct{ role, content string }{
	{"system", benchSystem},
	{"user", "The CI job `unit` started failing after yesterday's merge. The log says: " +
		"`store_test.go:118: RecordTurns: database is locked`. Can you find out why?"},
	{"assistant", "The failure comes from two writers sharing the SQLite file: `TestRecordTurns` opens the store " +
		"twice and both connections write in parallel. With WAL mode and a busy timeout of 0 the second writer " +
		"fails at once. I suggest setting `_pragma=busy_timeout(5000)` in the DSN and using a single *store.DB " +
		"in the test. Shall I make the change?"},
	{"user", "Yes, but keep the DSN change minimal and add a regression test that runs two writers concurrently."},
	{"assistant", "Done. I changed `dsn()` in store/store.go to add the busy timeout and added " +
		"`TestConcurrentWriters`, which starts eight goroutines that each record 50 turns and checks that all 400 " +
		"are stored. `go test -race ./store/` passes locally in 1.9 s."},
	{"user", "Great. Now run the whole suite with the race detector and tell me if anything else is flaky; " +
		"if something fails, show me the first failure and your guess at the cause before fixing it."},
}

// benchBody returns the JSON chat request of the benchmark conversation:
// 1,936 bytes (1,990 streaming, which adds stream and stream_options).
func benchBody(stream bool) []byte {
	var b bytes.Buffer
	b.WriteString(`{"model":"gpt-4o-mini","temperature":0.2,"max_tokens":1024,`)
	if stream {
		b.WriteString(`"stream":true,"stream_options":{"include_usage":true},`)
	}
	b.WriteString(`"messages":[`)
	for i, m := range benchMessages {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"role":%q,"content":%q}`, m.role, m.content)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

// benchReply is what the fake provider answers: about 400 characters, sent
// as 16-rune deltas when streamed (about 30 SSE events).
var benchReply = strings.Repeat("Running `go test -race ./...` now; I will report the first failure and my guess. ", 5)

// benchSkillsText is what the test injector adds: about 300 tokens of
// skills Markdown (1,212 bytes; four characters a token).
var benchSkillsText = func() string {
	var b strings.Builder
	b.WriteString("## Skills\n\n")
	skills := []string{
		"**Reproduce before fixing**: run the failing test alone with -run and -count=1 and read the whole failure.",
		"**Flaky SQLite tests**: look for two connections writing at once; set busy_timeout and share one handle.",
		"**Race detector**: run go test -race on the package; a DATA RACE report names both goroutines' stacks.",
		"**Small diffs**: change one thing per commit, keep the project's style, explain the why in the message.",
		"**Timeouts in tests**: never sleep to wait for a goroutine; use channels, contexts or polling with a deadline.",
		"**Logs first**: when CI fails but local runs pass, compare environment, Go version and parallelism flags.",
	}
	for i := 0; b.Len() < 1200; i++ {
		fmt.Fprintf(&b, "%d. %s\n", i+1, skills[i%len(skills)])
	}
	return b.String()
}()

// benchMarker is the start of the injected text, checked upstream once.
const benchMarker = "## Skills"

// benchInjector injects benchSkillsText into every main turn.
type benchInjector struct{}

func (benchInjector) Name() string { return "skills" }

func (benchInjector) Inject(context.Context, learning.InjectRequest) (learning.Injection, error) {
	return learning.Injection{Text: benchSkillsText, IDs: []string{"skill-reproduce", "skill-sqlite", "skill-race"}}, nil
}

// benchTarget is where a benchmark sends its requests.
type benchTarget struct {
	url    string // chat completions URL
	client *http.Client
	body   []byte // non-streaming request
	stream []byte // streaming request
}

// benchClient is shared by every request of a benchmark: keep-alive with
// enough idle connections per host for c32.
func benchClient(b *testing.B) *http.Client {
	tr := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		MaxIdleConns:        256,
		MaxIdleConnsPerHost: 128,
		IdleConnTimeout:     time.Minute,
		DisableCompression:  true,
	}
	b.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: time.Minute}
}

// startBenchUpstream starts the fake provider (recording off) and returns
// it with its base URL.
func startBenchUpstream(b *testing.B) (*fakeupstream.Server, string) {
	up := fakeupstream.New()
	up.SetRecording(false)
	up.SetDefault(fakeupstream.Reply{Text: benchReply, ChunkSize: 16})
	base, err := up.Start()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { up.Close() })
	return up, base
}

// startBenchProxy starts the proxy in front of upstream base, with a SQLite
// recorder and the skills injector, and returns its base URL and server.
func startBenchProxy(b *testing.B, upstreamBase string) (string, *proxy.Server) {
	return startBenchProxyWith(b, upstreamBase, true)
}

// startBenchProxyWith starts the proxy; without work it neither records
// nor injects, which measures the HTTP hop alone.
func startBenchProxyWith(b *testing.B, upstreamBase string, work bool) (string, *proxy.Server) {
	return startBench(b, upstreamBase, "custom", work, work)
}

// startBenchProxyFor starts the proxy, recording and injecting, in front of
// an upstream of the given provider preset ("custom" speaks OpenAI's API,
// "anthropic" Anthropic's).
func startBenchProxyFor(b *testing.B, upstreamBase, provider string) (string, *proxy.Server) {
	return startBench(b, upstreamBase, provider, true, true)
}

func startBench(b *testing.B, upstreamBase, provider string, record, inject bool) (string, *proxy.Server) {
	db, err := store.Open(filepath.Join(b.TempDir(), "metaclaw.db"))
	if err != nil {
		b.Fatal(err)
	}
	cfg := config.Defaults()
	cfg.Mode = "skills_only"
	cfg.LLM.Provider = provider
	cfg.LLM.APIBase = upstreamBase + "/v1"
	cfg.LLM.ModelID = "fake-model"
	cfg.LLM.APIKey = "sk-bench-0123456789"
	cfg.Proxy.Host = "127.0.0.1"
	opts := proxy.Options{Config: cfg, Recorder: db, Injectors: []learning.Injector{benchInjector{}}}
	if !record {
		opts.Recorder = nil
	}
	if !inject {
		opts.Injectors = nil
	}
	srv := proxy.New(opts)
	if err := srv.Listen("127.0.0.1:0"); err != nil {
		db.Close()
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, 5*time.Second) }()
	b.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			b.Errorf("proxy serve: %v", err)
		}
		st := srv.Stats()
		if st.Dropped > 0 || st.Failed > 0 {
			b.Logf("recorder: %+v", st)
		}
		db.Close()
	})
	return "http://" + srv.Addr(), srv
}

// BenchmarkDirect sends the benchmark requests straight to the fake
// provider: the baseline.
func BenchmarkDirect(b *testing.B) {
	_, base := startBenchUpstream(b)
	runBenchSuite(b, benchTarget{url: base + "/v1/chat/completions", client: benchClient(b),
		body: benchBody(false), stream: benchBody(true)})
}

// BenchmarkProxy sends the same requests through the proxy, injection and
// recording on.
func BenchmarkProxy(b *testing.B) {
	up, upBase := startBenchUpstream(b)
	base, _ := startBenchProxy(b, upBase)
	t := benchTarget{url: base + "/v1/chat/completions", client: benchClient(b),
		body: benchBody(false), stream: benchBody(true)}
	checkInjected(b, up, t)
	runBenchSuite(b, t)
}

// BenchmarkProxyBare sends the same requests through the proxy with
// recording and injection off: the cost of the extra HTTP hop alone, the
// floor under BenchmarkProxy.
func BenchmarkProxyBare(b *testing.B) {
	_, upBase := startBenchUpstream(b)
	base, _ := startBenchProxyWith(b, upBase, false)
	runBenchSuite(b, benchTarget{url: base + "/v1/chat/completions", client: benchClient(b),
		body: benchBody(false), stream: benchBody(true)})
}

// BenchmarkProxyParts splits BenchmarkProxy's cost at 32 clients: the
// proxy recording without injecting, and injecting without recording
// (against BenchmarkProxyBare, which does neither, and BenchmarkProxy,
// which does both).
func BenchmarkProxyParts(b *testing.B) {
	for _, p := range []struct {
		name           string
		record, inject bool
	}{{"record-only", true, false}, {"inject-only", false, true}} {
		b.Run(p.name+"-c32", func(b *testing.B) {
			_, upBase := startBenchUpstream(b)
			base, _ := startBench(b, upBase, "custom", p.record, p.inject)
			benchLoad(b, benchTarget{url: base + "/v1/chat/completions", client: benchClient(b), body: benchBody(false)}, 32, false)
		})
	}
}

// checkInjected sends one request through the proxy with the fake's
// recording on, and fails unless the upstream saw the injected skills.
func checkInjected(b *testing.B, up *fakeupstream.Server, t benchTarget) {
	up.SetRecording(true)
	defer up.SetRecording(false)
	if _, _, err := t.do(t.body, false); err != nil {
		b.Fatal(err)
	}
	for _, r := range up.Requests() { // the proxy's model-list refresh may be there too
		if r.Path == "/v1/chat/completions" && bytes.Contains(r.Body, []byte(benchMarker)) {
			return
		}
	}
	b.Fatal("the upstream did not receive the injected skills")
}

func runBenchSuite(b *testing.B, t benchTarget) {
	b.Run("nonstream-c1", func(b *testing.B) { benchLoad(b, t, 1, false) })
	b.Run("nonstream-c32", func(b *testing.B) { benchLoad(b, t, 32, false) })
	b.Run("stream-c1", func(b *testing.B) { benchLoad(b, t, 1, true) })
}

// do sends one request and reads the whole answer. It returns the time to
// the first SSE data line (streaming only) and to the end of the body.
func (t benchTarget) do(body []byte, stream bool) (ttfb, total time.Duration, err error) {
	req, err := http.NewRequest(http.MethodPost, t.url, bytes.NewReader(body))
	if err != nil {
		return 0, 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer sk-agent-key")
	req.Header.Set("User-Agent", "bench-agent/1.0")
	if stream {
		req.Header.Set("Accept", "text/event-stream")
	}
	start := time.Now()
	resp, err := t.client.Do(req)
	if err != nil {
		return 0, 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
		return 0, 0, fmt.Errorf("status %d: %s", resp.StatusCode, msg)
	}
	if stream {
		br := bufio.NewReader(resp.Body)
		for {
			line, err := br.ReadSlice('\n')
			if err != nil {
				return 0, 0, fmt.Errorf("stream ended before a data line: %w", err)
			}
			if bytes.HasPrefix(line, []byte("data:")) {
				break
			}
		}
		ttfb = time.Since(start)
		if _, err := io.Copy(io.Discard, br); err != nil {
			return 0, 0, err
		}
		return ttfb, time.Since(start), nil
	}
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return 0, 0, err
	}
	return 0, time.Since(start), nil
}

// benchLoad sends exactly b.N requests from conc goroutines and reports the
// latency percentiles and the throughput.
func benchLoad(b *testing.B, t benchTarget, conc int, stream bool) {
	body := t.body
	if stream {
		body = t.stream
	}
	// Warm up: one request per worker opens its keep-alive connection.
	var wg sync.WaitGroup
	for range conc {
		wg.Go(func() {
			if _, _, err := t.do(body, stream); err != nil {
				b.Error(err)
			}
		})
	}
	wg.Wait()
	if b.Failed() {
		b.FailNow()
	}

	n := b.N
	ttfbs := make([][]time.Duration, conc)
	totals := make([][]time.Duration, conc)
	var next atomic.Int64
	var failed atomic.Int64
	b.ResetTimer()
	start := time.Now()
	for w := range conc {
		wg.Go(func() {
			tt := make([]time.Duration, 0, n/conc+1)
			to := make([]time.Duration, 0, n/conc+1)
			for next.Add(1) <= int64(n) {
				ttfb, total, err := t.do(body, stream)
				if err != nil {
					if failed.Add(1) == 1 {
						b.Error(err)
					}
					continue
				}
				tt = append(tt, ttfb)
				to = append(to, total)
			}
			ttfbs[w], totals[w] = tt, to
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if f := failed.Load(); f > 0 {
		b.Fatalf("%d of %d requests failed", f, n)
	}

	all := slices.Concat(totals...)
	b.ReportMetric(benchPercentileUS(all, 50), "p50-us")
	b.ReportMetric(benchPercentileUS(all, 99), "p99-us")
	b.ReportMetric(float64(n)/elapsed.Seconds(), "req/s")
	if stream {
		first := slices.Concat(ttfbs...)
		b.ReportMetric(benchPercentileUS(first, 50), "ttfb-p50-us")
		b.ReportMetric(benchPercentileUS(first, 99), "ttfb-p99-us")
	}
}

// benchPercentileUS returns the p-th percentile (nearest rank) in microseconds.
func benchPercentileUS(d []time.Duration, p float64) float64 {
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	i := int(math.Ceil(p/100*float64(len(d)))) - 1
	return float64(d[max(i, 0)].Nanoseconds()) / 1e3
}
