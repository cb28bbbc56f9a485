package cli

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// startProfile writes a CPU profile of this run to $METACLAW_CPUPROFILE
// when it is set: a tool for finding where the proxy's time goes under
// load (go tool pprof metaclaw FILE). It returns the function that ends
// the profile, nil when off.
func startProfile(env *Env) func() {
	path := os.Getenv("METACLAW_CPUPROFILE")
	if path == "" {
		return nil
	}
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintln(env.Stderr, "metaclaw: cpu profile:", err)
		return nil
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		fmt.Fprintln(env.Stderr, "metaclaw: cpu profile:", err)
		f.Close()
		return nil
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
