package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// BenchmarkAddedLatency measures what the real binary adds to one client's
// requests, as a person runs it: the fakeupstream command and `metaclaw
// start` each in its own process, metaclaw set up with its defaults
// (`setup` without --mode: learning on — recording, injection, judging,
// memory extraction, skill evolution) and pointed at the fake, the client
// in this process. Every iteration sends the same request straight to the
// fake and then through metaclaw, one at a time on keep-alive connections,
// so drift of the loaded machine hits both alike. Rows:
//
//	openai-3KB, openai-50KB        OpenAI client, OpenAI-style upstream
//	anthropic-3KB, anthropic-50KB  Anthropic client, Anthropic upstream
//	translated-50KB                Anthropic client, OpenAI-style upstream
//	                               (direct sends the upstream's shape)
//	stream-first-event             OpenAI client, 3 KB, streamed: the time
//	                               to the first SSE data line
//	learning-off/...               openai-3KB, openai-50KB and
//	                               stream-first-event with learning paused
//	                               (`metaclaw pause`)
//
// Each row reports direct-p50-ns, proxy-p50-ns and added-p50-ns (their
// difference; for the stream row the same of the first event),
// added-p90-ns (the same at the 90th percentile) and peak-RSS-bytes, the
// largest VmRSS of the metaclaw process during the row, and cpu-ns/req,
// the CPU time the metaclaw process spent a request, counting the
// learning the row caused until the process is idle again. benchstat shows
// the times in seconds (added-p50-sec) and the bytes in MiB.
//
//	go test -run '^$' -bench AddedLatency -benchtime 400x -count 5 ./app/cmd/metaclaw/
//
// With METACLAW_BENCH_PROFILES=DIR each metaclaw process writes a CPU
// profile of its run to DIR (go tool pprof).
func BenchmarkAddedLatency(b *testing.B) {
	fake := startFakeProcess(b)
	client := addedClient(b)
	for _, g := range addedGroups {
		in := g.start(b, fake)
		for _, r := range g.rows {
			b.Run(g.prefix+r.name, func(b *testing.B) { r.bench(b, client, fake, in) })
		}
		in.stop(b)
	}
}

// addedGroup is the rows measured against one metaclaw process.
type addedGroup struct {
	prefix   string
	provider string // "custom" (OpenAI-style) or "anthropic"
	paused   bool   // learning paused
	rows     []addedRow
}

// addedRow is one request measured straight to the fake and through
// metaclaw.
type addedRow struct {
	name       string
	path       string // the client's path (to metaclaw)
	body       []byte
	directPath string // the same conversation in the upstream's API
	directBody []byte
	stream     bool
}

func openaiRow(name string, body []byte) addedRow {
	return addedRow{name: name, path: "/v1/chat/completions", body: body, directPath: "/v1/chat/completions", directBody: body}
}

func anthropicRow(name string, body []byte) addedRow {
	return addedRow{name: name, path: "/v1/messages", body: body, directPath: "/v1/messages", directBody: body}
}

var (
	openai3KB, openai50KB       = agentBody(false, false, smallAgent), agentBody(false, false, largeAgent)
	anthropic3KB, anthropic50KB = agentBody(true, false, smallAgent), agentBody(true, false, largeAgent)
	openai3KBStream             = agentBody(false, true, smallAgent)
)

var streamRow = addedRow{name: "stream-first-event", path: "/v1/chat/completions", body: openai3KBStream,
	directPath: "/v1/chat/completions", directBody: openai3KBStream, stream: true}

var addedGroups = []addedGroup{
	{provider: "custom", rows: []addedRow{
		openaiRow("openai-3KB", openai3KB),
		openaiRow("openai-50KB", openai50KB),
		{name: "translated-50KB", path: "/v1/messages", body: anthropic50KB,
			directPath: "/v1/chat/completions", directBody: openai50KB},
		streamRow,
	}},
	{provider: "anthropic", rows: []addedRow{
		anthropicRow("anthropic-3KB", anthropic3KB),
		anthropicRow("anthropic-50KB", anthropic50KB),
	}},
	{prefix: "learning-off/", provider: "custom", paused: true, rows: []addedRow{
		openaiRow("openai-3KB", openai3KB),
		openaiRow("openai-50KB", openai50KB),
		streamRow,
	}},
}

// addedInstance is a running metaclaw process.
type addedInstance struct {
	base string
	pid  int
	cmd  *exec.Cmd
	once sync.Once
}

// start sets up a fresh data directory with the defaults pointed at the
// fake and starts metaclaw in it.
func (g addedGroup) start(b *testing.B, fake string) *addedInstance {
	in := newInstance(b)
	in.must("setup", "--provider", g.provider, "--api-base", fake+"/v1", "--model", "fake-model",
		"--api-key-env", "TEST_PROVIDER_KEY", "--port", strconv.Itoa(in.port))
	if g.paused {
		in.must("pause")
	}
	cmd := exec.Command(binary, "start", "--no-tray")
	cmd.Env = in.env
	if dir := os.Getenv("METACLAW_BENCH_PROFILES"); dir != "" { // a CPU profile of each process
		name := g.provider + map[bool]string{true: "-paused"}[g.paused] + ".prof"
		cmd.Env = append(cmd.Env, "METACLAW_CPUPROFILE="+filepath.Join(dir, name))
	}
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	ai := &addedInstance{base: "http://127.0.0.1:" + strconv.Itoa(in.port), pid: cmd.Process.Pid, cmd: cmd}
	b.Cleanup(func() { ai.stop(b) })
	for begin := time.Now(); !healthy(ai.base); time.Sleep(5 * time.Millisecond) {
		if time.Since(begin) > 20*time.Second {
			b.Fatalf("metaclaw not healthy in 20s:\n%s", out.String())
		}
	}
	return ai
}

// stop stops the process (once).
func (ai *addedInstance) stop(b *testing.B) {
	ai.once.Do(func() { stopProcess(b, ai.cmd) })
}

// bench runs b.N iterations of the row and reports its metrics.
func (r addedRow) bench(b *testing.B, client *http.Client, fake string, in *addedInstance) {
	direct := addedTarget{client: client, url: fake + r.directPath, body: r.directBody, stream: r.stream}
	through := addedTarget{client: client, url: in.base + r.path, body: r.body, stream: r.stream}
	for range 20 { // warm both connections and the proxy's caches
		direct.time(b)
		through.time(b)
	}
	b.StopTimer()
	waitQuiet(b, in.pid)
	stop, peak := make(chan struct{}), make(chan int, 1)
	go func() { peak <- sampleRSS(in.pid, 5*time.Millisecond, stop) }()
	d, p := make([]time.Duration, 0, b.N), make([]time.Duration, 0, b.N)
	ticks := procCPUTicks(in.pid)
	b.StartTimer()
	for range b.N {
		d = append(d, direct.time(b))
		p = append(p, through.time(b))
	}
	b.StopTimer()
	close(stop)
	waitQuiet(b, in.pid) // the learning the row caused
	ticks = procCPUTicks(in.pid) - ticks
	dm, pm := quantile(d, 0.5), quantile(p, 0.5)
	b.ReportMetric(dm, "direct-p50-ns")
	b.ReportMetric(pm, "proxy-p50-ns")
	b.ReportMetric(pm-dm, "added-p50-ns")
	b.ReportMetric(quantile(p, 0.9)-quantile(d, 0.9), "added-p90-ns")
	b.ReportMetric(float64(<-peak)*1024, "peak-RSS-bytes")
	b.ReportMetric(float64(ticks)*1e7/float64(b.N), "cpu-ns/req") // clock ticks of 10 ms
}

// quantile returns the q-quantile of ds (nearest rank) in nanoseconds.
func quantile(ds []time.Duration, q float64) float64 {
	s := slices.Clone(ds)
	slices.Sort(s)
	i := min(len(s)-1, int(q*float64(len(s))))
	return float64(s[i].Nanoseconds())
}

// addedClient is a keep-alive client: one connection to each server.
func addedClient(b *testing.B) *http.Client {
	tr := &http.Transport{MaxIdleConnsPerHost: 4, IdleConnTimeout: time.Minute, DisableCompression: true}
	b.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: time.Minute}
}

// addedTarget is one URL and the request sent to it.
type addedTarget struct {
	client *http.Client
	url    string
	body   []byte
	stream bool
}

// time sends the request and reads the whole answer. It returns the time
// until the answer was read, or, streamed, until the first SSE data line.
func (t addedTarget) time(b *testing.B) time.Duration {
	req, err := http.NewRequest(http.MethodPost, t.url, bytes.NewReader(t.body))
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer sk-agent-key")
	req.Header.Set("X-Api-Key", "sk-agent-key")
	req.Header.Set("Anthropic-Version", "2023-06-01")
	begin := time.Now()
	resp, err := t.client.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	var took time.Duration
	if t.stream && resp.StatusCode == http.StatusOK {
		took = firstDataLine(b, resp.Body, begin)
	}
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		b.Fatalf("%s: %v", t.url, err)
	}
	if resp.StatusCode != http.StatusOK {
		b.Fatalf("%s: status %d: %.300s", t.url, resp.StatusCode, data)
	}
	if !t.stream {
		took = time.Since(begin)
	}
	return took
}

// firstDataLine reads body up to the end of its first "data:" line and
// returns the time since begin.
func firstDataLine(b *testing.B, body io.Reader, begin time.Time) time.Duration {
	r := bufio.NewReader(body)
	for {
		line, err := r.ReadSlice('\n')
		if bytes.HasPrefix(line, []byte("data:")) {
			took := time.Since(begin)
			io.Copy(io.Discard, r)
			return took
		}
		if err != nil {
			b.Fatalf("stream ended before a data line: %v", err)
		}
	}
}

// agentShape is the size of an agent conversation.
type agentShape struct {
	systemRepeat int // times agentSystem is repeated
	tools        int
	rounds       int // tool-loop rounds of three messages
	resultLines  int // lines of each tool result
}

var (
	smallAgent = agentShape{systemRepeat: 3, tools: 2, rounds: 1, resultLines: 8}     // about 3 KB
	largeAgent = agentShape{systemRepeat: 22, tools: 12, rounds: 20, resultLines: 17} // about 50 KB
)

const agentSystem = "You are a coding agent in the user's repository. You read and edit files, run commands " +
	"and search the code with the tools you are given. Make small changes, run the tests of what you " +
	"touched, and report what you changed, why, and anything you could not check. Ask before deleting.\n"

const agentResultLine = "store/store.go:118: func (db *DB) RecordTurns(ctx context.Context, turns []*Turn) error {\n"

// agentBody is a coding agent's request in OpenAI's shape or Anthropic's:
// a long system prompt, tool definitions and a tool loop.
func agentBody(anthropic, stream bool, s agentShape) []byte {
	type obj = map[string]any
	system := strings.Repeat(agentSystem, s.systemRepeat)
	var tools, msgs []any
	for i := range s.tools {
		params := obj{"type": "object", "required": []string{"path"}, "properties": obj{
			"path":    obj{"type": "string", "description": "The file's path from the repository root."},
			"pattern": obj{"type": "string", "description": "A regular expression to search for."},
			"limit":   obj{"type": "integer", "description": "The most results to return."}}}
		name, desc := "tool_"+strconv.Itoa(i), "Reads, searches or edits the repository's files and returns text."
		if anthropic {
			tools = append(tools, obj{"name": name, "description": desc, "input_schema": params})
		} else {
			tools = append(tools, obj{"type": "function", "function": obj{"name": name, "description": desc, "parameters": params}})
		}
	}
	if !anthropic {
		msgs = append(msgs, obj{"role": "system", "content": system})
	}
	for i := range s.rounds {
		msgs = append(msgs, agentRound(anthropic, i, strings.Repeat(agentResultLine, s.resultLines))...)
	}
	msgs = append(msgs, obj{"role": "user", "content": "Now run the whole suite with the race detector and tell me what fails."})
	req := obj{"model": "fake-model", "max_tokens": 1024, "messages": msgs, "tools": tools, "stream": stream}
	if anthropic {
		req["system"] = system
	}
	data, err := json.Marshal(req)
	if err != nil {
		panic(err)
	}
	return data
}

// agentRound is one round of a tool loop: the user's ask, the assistant's
// tool call, the tool's result.
func agentRound(anthropic bool, i int, result string) []any {
	type obj = map[string]any
	ask := fmt.Sprintf("Step %d: the unit job fails with `database is locked`; find out why.", i)
	id, args := fmt.Sprintf("call_%02d", i), `{"path":"store/store.go","pattern":"RecordTurns","limit":20}`
	if anthropic {
		return []any{obj{"role": "user", "content": ask},
			obj{"role": "assistant", "content": []any{obj{"type": "text", "text": "Let me look at the code."},
				obj{"type": "tool_use", "id": id, "name": "tool_1", "input": json.RawMessage(args)}}},
			obj{"role": "user", "content": []any{obj{"type": "tool_result", "tool_use_id": id, "content": result}}}}
	}
	return []any{obj{"role": "user", "content": ask},
		obj{"role": "assistant", "content": "Let me look at the code.", "tool_calls": []any{
			obj{"id": id, "type": "function", "function": obj{"name": "tool_1", "arguments": args}}}},
		obj{"role": "tool", "tool_call_id": id, "content": result}}
}

// TestAgentBodySizes keeps the benchmark's requests at the sizes its rows
// are named after.
func TestAgentBodySizes(t *testing.T) {
	for _, c := range []struct {
		name     string
		body     []byte
		min, max int
	}{
		{"openai-3KB", openai3KB, 2500, 3500}, {"anthropic-3KB", anthropic3KB, 2500, 3500},
		{"openai-50KB", openai50KB, 45000, 55000}, {"anthropic-50KB", anthropic50KB, 45000, 55000},
	} {
		if n := len(c.body); n < c.min || n > c.max {
			t.Errorf("%s: %d bytes, want %d to %d", c.name, n, c.min, c.max)
		}
	}
}
