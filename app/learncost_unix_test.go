//go:build unix

package app

import (
	"syscall"
	"testing"
	"time"
)

// cpuTime is the process's user and system CPU time so far.
func cpuTime(t testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkLearningCost plays b.N agent sessions of 40 main turns through
// the app with default settings in skills_only, learning on and paused,
// and reports learner calls per main turn and the process's CPU per turn
// (proxy, recorder and the fake upstream included; the difference between
// the two is learning's):
//
//	go test -run '^$' -bench LearningCost -benchtime 20x ./app/
func BenchmarkLearningCost(b *testing.B) {
	for _, mode := range []struct {
		name   string
		paused bool
	}{{"learning", false}, {"paused", true}} {
		b.Run(mode.name, func(b *testing.B) {
			start := cpuTime(b)
			turns, calls := runLearningWorkload(b, b.N, mode.paused)
			cpu := cpuTime(b) - start
			b.ReportMetric(float64(calls.total())/float64(turns), "learner-calls/turn")
			b.ReportMetric(float64(cpu.Microseconds())/float64(turns), "cpu-µs/turn")
		})
	}
}
