package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// BenchmarkProxyRSSUnderLoad runs the real fakeupstream command and the real
// metaclaw binary as separate processes and drives load at them from this
// one: 32 concurrent clients (each its own agent, with sessions of 100
// turns), one request in four streamed, b.N requests straight to the fake
// (the baseline), then b.N through metaclaw while its VmRSS is sampled every
// 5 ms. It reports:
//
//	req/s          through metaclaw
//	direct-req/s   straight to the fake process
//	pct-of-direct  100 × req/s ÷ direct-req/s
//	peak-RSS-MB    largest VmRSS of the metaclaw process seen during the load
//
// The three processes share the machine's cores; the load generator and the
// fake do the same work in both phases, so the ratio is what the proxy
// process costs. metaclaw runs as `setup --mode skills_only` leaves it: it
// records every turn in its SQLite store and injects what the app wires in
// (at the time of writing the starter skill bank through the keyword
// retriever, about 5.6 KB of skills a turn).
//
//	go test -run '^$' -bench ProxyRSSUnderLoad -benchtime 20000x ./app/cmd/metaclaw/
func BenchmarkProxyRSSUnderLoad(b *testing.B) {
	fakeBase := startFakeProcess(b)
	in := newInstance(b)
	in.must("setup", "--provider", "custom", "--api-base", fakeBase+"/v1", "--model", "fake-model",
		"--api-key-env", "TEST_PROVIDER_KEY", "--mode", "skills_only", "--port", strconv.Itoa(in.port))
	// The judge and memory extraction call the same fake on this machine
	// (three votes a turn): that is the learner's load, not the proxy's.
	in.must("config", "set", "rl.prm_votes", "0", "memory.auto_extract", "false", "skills.auto_evolve", "false")
	pid := startMetaclaw(b, in)
	proxyBase := "http://127.0.0.1:" + strconv.Itoa(in.port)
	client := loadClient(b)
	b.Run("c32", func(b *testing.B) {
		direct := loadTarget{client: client, url: fakeBase + "/v1/chat/completions"}
		through := loadTarget{client: client, url: proxyBase + "/v1/chat/completions"}
		direct.warm(b, 32)
		through.warm(b, 32)

		b.StopTimer()
		// metaclaw may still be busy with the previous run (recording,
		// learning): the baseline must not share the CPU with it.
		waitQuiet(b, pid)
		directRate := direct.run(b, 32, b.N)

		stop := make(chan struct{})
		peak := make(chan int, 1)
		go func() { peak <- sampleRSS(pid, 5*time.Millisecond, stop) }()
		b.StartTimer()
		rate := through.run(b, 32, b.N)
		b.StopTimer()
		close(stop)
		peakKB := <-peak

		b.ReportMetric(rate, "req/s")
		b.ReportMetric(directRate, "direct-req/s")
		b.ReportMetric(100*rate/directRate, "pct-of-direct")
		b.ReportMetric(float64(peakKB)/1024, "peak-RSS-MB")
	})
}

// fakeupstreamBin is the fakeupstream command, built once next to binary
// (TestMain removes that directory).
var fakeupstreamBin = sync.OnceValues(func() (string, error) {
	path := filepath.Join(filepath.Dir(binary), "fakeupstream")
	out, err := exec.Command("go", "build", "-o", path, "github.com/metaclaw/metaclaw/proxy/fakeupstream/cmd/fakeupstream").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("build fakeupstream: %v\n%s", err, out)
	}
	return path, nil
})

// loadReply is the fake's answer: about 400 characters, 16 runes a delta
// when streamed (about 30 events).
var loadReply = strings.Repeat("Running `go test -race ./...` now; I will report the first failure and my guess. ", 5)

// startFakeProcess runs the fakeupstream command (recording off) and returns
// its base URL; it is stopped when b ends.
func startFakeProcess(b *testing.B) string {
	path, err := fakeupstreamBin()
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(path, "-addr", "127.0.0.1:0", "-text", loadReply, "-chunk-size", "16")
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { stopProcess(b, cmd) })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if !strings.HasPrefix(line, "READY ") {
		b.Fatalf("fakeupstream printed %q (%v)", line, err)
	}
	return strings.TrimSpace(strings.TrimPrefix(line, "READY "))
}

// startMetaclaw runs `metaclaw start --no-tray` in the instance, waits until
// it is healthy and returns its pid; it is stopped when b ends.
func startMetaclaw(b *testing.B, in *instance) int {
	cmd := exec.Command(binary, "start", "--no-tray")
	cmd.Env = in.env
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { stopProcess(b, cmd) })
	url := "http://127.0.0.1:" + strconv.Itoa(in.port)
	for begin := time.Now(); !healthy(url); time.Sleep(5 * time.Millisecond) {
		if time.Since(begin) > 20*time.Second {
			b.Fatalf("metaclaw not healthy in 20s:\n%s", out.String())
		}
	}
	return cmd.Process.Pid
}

// stopProcess sends SIGTERM and waits, killing the process after 10 s.
func stopProcess(b *testing.B, cmd *exec.Cmd) {
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			b.Errorf("%s: %v", filepath.Base(cmd.Path), err)
		}
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-done
		b.Errorf("%s did not stop on SIGTERM", filepath.Base(cmd.Path))
	}
}

// loadClient is a keep-alive client with enough idle connections for c32.
func loadClient(b *testing.B) *http.Client {
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

// loadConversation is a small agent conversation (about 1.9 KB as JSON).
var loadConversation = [][2]string{
	{"system", "You are a coding agent working in the user's repository. You can read and edit files, run shell " +
		"commands and search the web. Prefer small, reviewable changes; explain what you changed and why. Never " +
		"run destructive commands without asking. When a test fails, read the failure before changing code. Keep " +
		"answers short unless the user asks for detail. The repository is a Go module; run go vet and the tests of " +
		"the packages you touch before you report a change as done, and mention anything you could not verify. Use " +
		"the project's existing style, naming and error handling; do not add dependencies without a reason. Cite " +
		"file paths with line numbers when you refer to code."},
	{"user", "The CI job `unit` started failing after yesterday's merge. The log says: `store_test.go:118: " +
		"RecordTurns: database is locked`. Can you find out why?"},
	{"assistant", "The failure comes from two writers sharing the SQLite file: `TestRecordTurns` opens the store " +
		"twice and both connections write in parallel. With WAL mode and a busy timeout of 0 the second writer fails " +
		"at once. I suggest setting `_pragma=busy_timeout(5000)` in the DSN and using a single *store.DB in the test. " +
		"Shall I make the change?"},
	{"user", "Yes, but keep the DSN change minimal and add a regression test that runs two writers concurrently."},
	{"assistant", "Done. I changed `dsn()` in store/store.go to add the busy timeout and added " +
		"`TestConcurrentWriters`, which starts eight goroutines that each record 50 turns and checks that all 400 " +
		"are stored. `go test -race ./store/` passes locally in 1.9 s."},
	{"user", "Great. Now run the whole suite with the race detector and tell me if anything else is flaky; if " +
		"something fails, show me the first failure and your guess at the cause before fixing it."},
}

func loadBody(stream bool) []byte {
	var b bytes.Buffer
	b.WriteString(`{"model":"gpt-4o-mini","temperature":0.2,"max_tokens":1024,`)
	if stream {
		b.WriteString(`"stream":true,"stream_options":{"include_usage":true},`)
	}
	b.WriteString(`"messages":[`)
	for i, m := range loadConversation {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"role":%q,"content":%q}`, m[0], m[1])
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

var loadBodies = [2][]byte{loadBody(false), loadBody(true)}

type loadTarget struct {
	client *http.Client
	url    string
}

// post sends one request of session and reads the whole answer.
func (t loadTarget) post(ctx context.Context, session string, stream bool) error {
	body := loadBodies[0]
	if stream {
		body = loadBodies[1]
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer sk-agent-key")
	req.Header.Set("User-Agent", "bench-agent/1.0")
	req.Header.Set("X-Session-Id", session)
	resp, err := t.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: status %d: %.300s", t.url, resp.StatusCode, data)
	}
	if stream && !bytes.Contains(data, []byte("data: [DONE]")) {
		return fmt.Errorf("%s: stream without [DONE]: %.300s", t.url, data)
	}
	return nil
}

// warm opens conc keep-alive connections.
func (t loadTarget) warm(b *testing.B, conc int) {
	var wg sync.WaitGroup
	for i := range conc {
		wg.Go(func() {
			if err := t.post(context.Background(), fmt.Sprintf("warm-%d-%d", loadRun.Add(1), i), i%2 == 1); err != nil {
				b.Error(err)
			}
		})
	}
	wg.Wait()
	if b.Failed() {
		b.FailNow()
	}
}

// loadRun numbers the load runs, so that each has its own sessions.
var loadRun atomic.Int64

// sessionTurns is the length of the sessions of the load.
const sessionTurns = 100

// run sends n requests from conc goroutines, one in four streamed, and
// returns the requests per second. Each goroutine is an agent with its own
// sessions of sessionTurns turns (X-Session-Id), as 32 agents would be.
func (t loadTarget) run(b *testing.B, conc, n int) float64 {
	var next, failed atomic.Int64
	var wg sync.WaitGroup
	runID := loadRun.Add(1)
	start := time.Now()
	for w := range conc {
		wg.Go(func() {
			for turn := 0; ; turn++ {
				i := next.Add(1)
				if i > int64(n) {
					return
				}
				session := fmt.Sprintf("load-%d-w%02d-s%d", runID, w, turn/sessionTurns)
				if err := t.post(context.Background(), session, i%4 == 0); err != nil && failed.Add(1) == 1 {
					b.Error(err)
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	if f := failed.Load(); f > 0 {
		b.Fatalf("%d of %d requests to %s failed", f, n, t.url)
	}
	return float64(n) / elapsed.Seconds()
}

// sampleRSS reads the process's VmRSS every interval until stop is closed
// and returns the largest value seen, in KiB.
func sampleRSS(pid int, interval time.Duration, stop <-chan struct{}) int {
	peak := procStatusKB(pid, "VmRSS")
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return max(peak, procStatusKB(pid, "VmRSS"))
		case <-t.C:
			peak = max(peak, procStatusKB(pid, "VmRSS"))
		}
	}
}

// procStatusKB reads one "Name:  N kB" field of /proc/<pid>/status (Linux);
// 0 when unavailable.
func procStatusKB(pid int, field string) int {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				n, _ := strconv.Atoi(f[0])
				return n
			}
		}
	}
	return 0
}

// waitQuiet waits, up to a minute, until the process has used under 4 % of
// a core for half a second.
func waitQuiet(b *testing.B, pid int) {
	deadline := time.Now().Add(time.Minute)
	prev, calm := procCPUTicks(pid), 0
	for calm < 2 {
		if time.Now().After(deadline) {
			b.Logf("metaclaw still busy after a minute; measuring anyway")
			return
		}
		time.Sleep(250 * time.Millisecond)
		cur := procCPUTicks(pid)
		if cur-prev <= 1 { // clock ticks, usually 10 ms each
			calm++
		} else {
			calm = 0
		}
		prev = cur
	}
}

// procCPUTicks returns the user+system CPU time of a process in clock ticks
// from /proc/<pid>/stat (Linux); 0 when unavailable.
func procCPUTicks(pid int) int {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	i := strings.LastIndexByte(string(data), ')') // the fields follow the command name
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.Atoi(f[11])
	stime, _ := strconv.Atoi(f[12])
	return utime + stime
}
