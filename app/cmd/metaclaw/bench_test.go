package main

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// BenchmarkStartToHealthy measures the time from `metaclaw start` (a new
// process, a data directory set up with the defaults — learning on —
// pointed at the fakeupstream process) until the proxy answers /healthz,
// and the process's resident memory after it has idled for a second.
func BenchmarkStartToHealthy(b *testing.B) {
	fake := startFakeProcess(b)
	in := newInstance(b)
	in.must("setup", "--provider", "custom", "--api-base", fake+"/v1", "--model", "fake-model",
		"--api-key-env", "TEST_PROVIDER_KEY", "--port", strconv.Itoa(in.port))
	url := "http://127.0.0.1:" + strconv.Itoa(in.port)
	var total time.Duration
	var rssKB int
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(binary, "start", "--no-tray")
		cmd.Env = in.env
		begin := time.Now()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		for !healthy(url) {
			time.Sleep(time.Millisecond)
			if time.Since(begin) > 20*time.Second {
				cmd.Process.Kill()
				b.Fatal("not healthy in 20s")
			}
		}
		total += time.Since(begin)
		if i == 0 {
			b.StopTimer()
			time.Sleep(time.Second)
			rssKB = vmRSS(cmd.Process.Pid)
			b.StartTimer()
		}
		cmd.Process.Signal(syscall.SIGTERM)
		if err := cmd.Wait(); err != nil {
			b.Fatalf("exit: %v", err)
		}
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms-to-healthy")
	b.ReportMetric(float64(rssKB)/1024, "idle-RSS-MB")
}

// vmRSS reads a process's resident set size in KiB from /proc (Linux).
func vmRSS(pid int) int {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			f := strings.Fields(line)
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	return 0
}
