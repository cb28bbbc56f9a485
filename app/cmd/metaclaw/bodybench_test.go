package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// BenchmarkLargeBodiesRSS sends bursts of conc concurrent requests of about
// 28 MB each (an agent's conversation holding 28 tool results of 1 MB) to
// the real metaclaw binary in front of the fakeupstream command, and
// samples the metaclaw process's VmRSS every 5 ms. Truncation is off
// (max_context_tokens 0), so each body goes upstream and into the store
// whole: the worst case. It reports, over b.N bursts:
//
//	peak-RSS-MB    largest VmRSS seen during a burst
//	after-30s-MB   VmRSS 30 s after the last burst ended
//	ok/burst       requests answered 200 (the others 429/503, over budget)
//
// Requests the proxy refuses for its in-flight budget are retried by the
// client after Retry-After, as an SDK does, so every request of a burst is
// answered in the end.
//
//	go test -run '^$' -bench LargeBodiesRSS -benchtime 1x ./app/cmd/metaclaw/
func BenchmarkLargeBodiesRSS(b *testing.B) {
	fakeBase := startFakeProcess(b)
	in := newInstance(b)
	in.must("setup", "--provider", "custom", "--api-base", fakeBase+"/v1", "--model", "fake-model",
		"--api-key-env", "TEST_PROVIDER_KEY", "--mode", "skills_only", "--port", strconv.Itoa(in.port))
	in.must("config", "set", "rl.prm_votes", "0", "memory.auto_extract", "false", "skills.auto_evolve", "false",
		"max_context_tokens", "0")
	pid := startMetaclaw(b, in)
	url := "http://127.0.0.1:" + strconv.Itoa(in.port) + "/v1/chat/completions"
	client := loadClient(b)
	for _, conc := range []int{16} {
		b.Run(fmt.Sprintf("c%d", conc), func(b *testing.B) {
			peakKB, okTotal := 0, 0
			for i := range b.N {
				stop := make(chan struct{})
				peak := make(chan int, 1)
				go func() { peak <- sampleRSS(pid, 5*time.Millisecond, stop) }()
				okTotal += largeBurst(b, client, url, conc, i)
				close(stop)
				peakKB = max(peakKB, <-peak)
			}
			b.StopTimer()
			time.Sleep(30 * time.Second)
			b.ReportMetric(float64(peakKB)/1024, "peak-RSS-MB")
			b.ReportMetric(float64(procStatusKB(pid, "VmRSS"))/1024, "after-30s-MB")
			b.ReportMetric(float64(okTotal)/float64(b.N), "ok/burst")
		})
	}
}

// largeBody is a chat request of about 28 MB: a system prompt, then 28
// rounds of a user asking for a file and a 1 MB answer.
var largeBody = sync.OnceValue(func() []byte {
	var buf bytes.Buffer
	buf.WriteString(`{"model":"fake-model","messages":[{"role":"system","content":"You are a coding agent."}`)
	file := strings.Repeat("func f() { return 42 } // a line of a large source file\n", 1<<20/56)
	for i := range 28 {
		fmt.Fprintf(&buf, `,{"role":"user","content":"show me file %d"},{"role":"assistant","content":%s}`, i, strconv.Quote(file))
	}
	buf.WriteString(`,{"role":"user","content":"now summarise them"}]}`)
	return buf.Bytes()
})

// largeBurst sends conc large requests at once and returns how many were
// answered 200 on their first try; the others are retried after the
// Retry-After the proxy asked for.
func largeBurst(b *testing.B, client *http.Client, url string, conc, round int) int {
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok := 0
	for w := range conc {
		wg.Go(func() {
			for try := 0; ; try++ {
				status, wait, err := postLarge(client, url, fmt.Sprintf("large-%d-%d", round, w))
				if err != nil || status != http.StatusOK && status != http.StatusTooManyRequests && status != http.StatusServiceUnavailable {
					b.Errorf("large request: status %d, %v", status, err)
					return
				}
				if status == http.StatusOK {
					if try == 0 {
						mu.Lock()
						ok++
						mu.Unlock()
					}
					return
				}
				time.Sleep(wait)
			}
		})
	}
	wg.Wait()
	runtime.GC() // the client's own buffers are not the proxy's
	return ok
}

func postLarge(client *http.Client, url, session string) (int, time.Duration, error) {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(largeBody()))
	if err != nil {
		return 0, 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer sk-agent-key")
	req.Header.Set("X-Session-Id", session)
	resp, err := client.Do(req)
	if err != nil {
		return 0, 0, err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	secs, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
	return resp.StatusCode, time.Duration(max(secs, 1)) * time.Second, nil
}

// BenchmarkManyMessagesRSS sends requests of 200,000 short messages (about
// 9 MB) to the real metaclaw binary, one at a time, and reports the
// process's VmRSS before the first (before-MB), the largest seen while
// they ran (peak-RSS-MB) and 30 s after the last (after-30s-MB).
// Truncation is off, as in BenchmarkLargeBodiesRSS.
//
//	go test -run '^$' -bench ManyMessagesRSS -benchtime 3x ./app/cmd/metaclaw/
func BenchmarkManyMessagesRSS(b *testing.B) {
	fakeBase := startFakeProcess(b)
	in := newInstance(b)
	in.must("setup", "--provider", "custom", "--api-base", fakeBase+"/v1", "--model", "fake-model",
		"--api-key-env", "TEST_PROVIDER_KEY", "--mode", "skills_only", "--port", strconv.Itoa(in.port))
	in.must("config", "set", "rl.prm_votes", "0", "memory.auto_extract", "false", "skills.auto_evolve", "false",
		"max_context_tokens", "0")
	pid := startMetaclaw(b, in)
	url := "http://127.0.0.1:" + strconv.Itoa(in.port) + "/v1/chat/completions"
	client := loadClient(b)
	var body bytes.Buffer
	body.WriteString(`{"model":"fake-model","messages":[{"role":"system","content":"You are a coding agent."}`)
	for i := range 200_000 {
		fmt.Fprintf(&body, `,{"role":"user","content":"message %d"}`, i)
	}
	body.WriteString(`]}`)
	before := procStatusKB(pid, "VmRSS")
	stop := make(chan struct{})
	peak := make(chan int, 1)
	go func() { peak <- sampleRSS(pid, 5*time.Millisecond, stop) }()
	b.ResetTimer()
	for i := range b.N {
		req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body.Bytes()))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Session-Id", fmt.Sprintf("many-%d", i))
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("status %d", resp.StatusCode)
		}
	}
	b.StopTimer()
	close(stop)
	peakKB := <-peak
	time.Sleep(30 * time.Second)
	b.ReportMetric(float64(before)/1024, "before-MB")
	b.ReportMetric(float64(peakKB)/1024, "peak-RSS-MB")
	b.ReportMetric(float64(procStatusKB(pid, "VmRSS"))/1024, "after-30s-MB")
}
