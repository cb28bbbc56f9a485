package main

import (
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// binary is the metaclaw binary built once for every test in this package.
var binary string

func TestMain(m *testing.M) {
	if os.Getenv("METACLAW_TEST_WRITER") != "" {
		os.Exit(writerMain())
	}
	dir, err := os.MkdirTemp("", "metaclaw-e2e-")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "metaclaw")
	if runtime.GOOS == "windows" {
		binary += ".exe"
	}
	out, err := exec.Command("go", "build", "-ldflags", "-X main.version=e2e-test", "-o", binary, ".").CombinedOutput()
	if err != nil {
		os.Stderr.Write(out)
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// instance is a temporary data directory and the environment to run the
// binary in it.
type instance struct {
	t    testing.TB
	home string
	port int
	env  []string
}

func newInstance(t testing.TB) *instance {
	t.Helper()
	home := t.TempDir()
	in := &instance{t: t, home: home, port: freePort(t)}
	in.env = append(os.Environ(), "METACLAW_HOME="+home, "DBUS_SESSION_BUS_ADDRESS=", "TEST_PROVIDER_KEY=sk-test-secret-1234")
	t.Cleanup(func() {
		// Never leave a daemon behind, whatever the test did.
		if data, err := os.ReadFile(filepath.Join(home, "metaclaw.pid")); err == nil {
			var info struct{ PID int }
			if json.Unmarshal(data, &info) == nil && info.PID > 0 {
				syscall.Kill(info.PID, syscall.SIGKILL)
			}
		}
	})
	return in
}

type result struct {
	stdout, stderr string
	code           int
}

func (in *instance) run(args ...string) result {
	in.t.Helper()
	return in.runInput("", args...)
}

func (in *instance) runInput(stdin string, args ...string) result {
	in.t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = in.env
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := result{stdout: stdout.String(), stderr: stderr.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		in.t.Fatalf("run %v: %v", args, err)
	}
	return r
}

// must runs a command that must succeed.
func (in *instance) must(args ...string) result {
	in.t.Helper()
	r := in.run(args...)
	if r.code != 0 {
		in.t.Fatalf("metaclaw %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r
}

// fails runs a command that must fail with code and print want on stderr.
func (in *instance) fails(code int, want string, args ...string) result {
	in.t.Helper()
	r := in.run(args...)
	if r.code != code || !strings.Contains(r.stderr, want) {
		in.t.Fatalf("metaclaw %s: exit %d, stderr %q; want exit %d and %q", strings.Join(args, " "), r.code, r.stderr, code, want)
	}
	return r
}

func (in *instance) setup() {
	in.t.Helper()
	in.must("setup", "--provider", "openai", "--api-key-env", "TEST_PROVIDER_KEY", "--mode", "skills_only", "--port", strconv.Itoa(in.port))
}

type status struct {
	State      string `json:"state"`
	PID        int    `json:"pid"`
	Mode       string `json:"mode"`
	ProxyURL   string `json:"proxy_url"`
	Responding bool   `json:"responding"`
	DataDir    string `json:"data_dir"`
	Version    string `json:"version"`
}

func (in *instance) status() (status, int) {
	in.t.Helper()
	r := in.run("status", "--json")
	var s status
	if err := json.Unmarshal([]byte(r.stdout), &s); err != nil {
		in.t.Fatalf("status --json: %v\n%s", err, r.stdout)
	}
	return s, r.code
}

func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func healthy(url string) bool {
	c := http.Client{Timeout: time.Second}
	resp, err := c.Get(url + "/healthz")
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}
