package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/metaclaw/metaclaw/store/testutil"
)

func TestSetupAndConfig(t *testing.T) {
	t.Parallel()
	in := newInstance(t)
	r := in.must("setup", "--provider", "openrouter", "--api-key-env", "TEST_PROVIDER_KEY", "--mode", "rl", "--port", "31999", "--claw-type", "zeroclaw")
	if strings.Contains(r.stdout+r.stderr, "sk-test-secret") {
		t.Fatal("setup printed the API key")
	}
	for key, want := range map[string]string{
		"llm.provider": "openrouter", "llm.api_base": "https://openrouter.ai/api/v1", "mode": "rl",
		"proxy.port": "31999", "llm.api_key": "********", "rl.api_key": "", "claw_type": "zeroclaw",
	} {
		if got := strings.TrimSpace(in.must("config", "get", key).stdout); got != want {
			t.Errorf("config get %s = %q, want %q", key, got, want)
		}
	}
	in.must("config", "set", "scheduler.sleep_start", "22:30", "skills.top_k", "4")
	in.must("config", "mode", "skills_only") // the reference's `config KEY VALUE`
	show := in.must("config", "show").stdout
	for _, want := range []string{"scheduler.sleep_start", "= 22:30", "mode ", "= skills_only", "llm.api_key", "********"} {
		if !strings.Contains(show, want) {
			t.Errorf("config show lacks %q", want)
		}
	}
	if strings.Contains(show, "sk-test-secret") {
		t.Error("config show printed the API key")
	}
	export := in.must("config", "export").stdout
	if strings.Contains(export, "sk-test-secret") || !strings.Contains(export, `sleep_start: "22:30"`) {
		t.Errorf("config export wrong:\n%s", export)
	}
	secretFile := filepath.Join(t.TempDir(), "full.yaml")
	in.must("config", "export", "--include-secrets", "-o", secretFile)
	fi, err := os.Stat(secretFile)
	data, _ := os.ReadFile(secretFile)
	if err != nil || fi.Mode().Perm() != 0o600 || !strings.Contains(string(data), "sk-test-secret-1234") {
		t.Errorf("export with secrets: mode %v, err %v", fi.Mode().Perm(), err)
	}
	in.fails(2, "needs -o FILE", "config", "export", "--include-secrets")
}

func TestConfigRefusalsChangeNothing(t *testing.T) {
	t.Parallel()
	in := newInstance(t)
	in.setup()
	before := in.must("config", "show").stdout
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown key", []string{"config", "set", "llm.temperature", "1"}, "llm.temperature: unknown key"},
		{"bad enum", []string{"config", "set", "mode", "turbo"}, "mode: \"turbo\" is not allowed; allowed: madmax, rl, skills_only"},
		{"bad port", []string{"config", "set", "proxy.port", "70000"}, "allowed: a port number from 1 to 65535"},
		{"bad url", []string{"config", "set", "llm.api_base", "not a url"}, "llm.api_base"},
		{"bad time", []string{"config", "set", "scheduler.sleep_end", "25:00"}, "allowed: a time of day as HH:MM"},
		{"not positive", []string{"config", "set", "rl.batch_size", "-3"}, "rl.batch_size"},
		{"one good one bad", []string{"config", "set", "skills.top_k", "3", "proxy.port", "x"}, "proxy.port"},
		{"get unknown", []string{"config", "get", "nope"}, "nope: unknown key"},
		{"bad provider", []string{"setup", "--provider", "acme"}, "allowed: kimi, qwen, openai"},
		{"custom without base", []string{"setup", "--provider", "custom"}, "needs --api-base"},
		{"missing key env", []string{"setup", "--provider", "kimi", "--api-key-env", "NO_SUCH_VAR_X"}, "NO_SUCH_VAR_X is empty"},
	}
	for _, tt := range tests {
		in.fails(1, tt.want, tt.args...)
	}
	if after := in.must("config", "show").stdout; after != before {
		t.Errorf("refused commands changed the configuration:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

func TestConfigImport(t *testing.T) {
	t.Parallel()
	in := newInstance(t)
	ref := filepath.Join("..", "..", "..", "store", "config", "testdata", "reference-config.yaml")
	r := in.must("config", "import", ref)
	if !strings.Contains(r.stderr, "openclaw_env_python_path") {
		t.Errorf("unknown key not listed: %q", r.stderr)
	}
	if got := strings.TrimSpace(in.must("config", "get", "rl.base_url").stdout); got != "https://mint.macaron.xin/" {
		t.Errorf("rl.base_url (from the tinker_base_url alias) = %q", got)
	}
	before := in.must("config", "show").stdout
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(bad, []byte("mode: skills_only\nproxy:\n  port: 0\n"), 0o600)
	in.fails(1, "proxy.port", "config", "import", bad)
	unknownOnly := filepath.Join(t.TempDir(), "unknown.yaml")
	os.WriteFile(unknownOnly, []byte("mode: madmax\nfoo: 1\n"), 0o600)
	in.fails(1, "nothing imported (--strict)", "config", "import", unknownOnly, "--strict")
	in.fails(1, "parse yaml", "config", "import", writeFile(t, "mode: [\n"))
	in.fails(1, "no such file", "config", "import", "/nonexistent.yaml")
	if after := in.must("config", "show").stdout; after != before {
		t.Error("a refused import changed the configuration")
	}
}

func writeFile(t *testing.T, content string) string {
	p := filepath.Join(t.TempDir(), "f.yaml")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSetupInteractive(t *testing.T) {
	t.Parallel()
	in := newInstance(t)
	// provider 9 (custom) with a bad URL first, then a good one; model;
	// key; a bad mode, then skills_only; a port; an unknown agent, then hermes.
	answers := "9\nnot-a-url\nhttp://127.0.0.1:9/v1\nmy-model\nsk-typed-key\nturbo\nskills_only\n" + strconv.Itoa(in.port) + "\nacmeclaw\nhermes\n"
	r := in.runInput(answers, "setup")
	if r.code != 0 {
		t.Fatalf("setup: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "is not an http(s) URL") || !strings.Contains(r.stdout, `"turbo" is not allowed`) ||
		!strings.Contains(r.stdout, `"acmeclaw" is not allowed`) {
		t.Errorf("bad answers not explained:\n%s", r.stdout)
	}
	if strings.Contains(r.stdout, "sk-typed-key") {
		t.Error("the key was echoed")
	}
	for key, want := range map[string]string{"llm.provider": "custom", "llm.api_base": "http://127.0.0.1:9/v1",
		"llm.model_id": "my-model", "mode": "skills_only", "llm.api_key": "********", "claw_type": "hermes"} {
		if got := strings.TrimSpace(in.must("config", "get", key).stdout); got != want {
			t.Errorf("%s = %q, want %q", key, got, want)
		}
	}
	// End of input mid-wizard saves nothing.
	in2 := newInstance(t)
	r = in2.runInput("2\n", "setup")
	if r.code != 1 || !strings.Contains(r.stderr, "nothing saved") {
		t.Errorf("cancelled setup: %d %q", r.code, r.stderr)
	}
	if got := strings.TrimSpace(in2.must("config", "get", "llm.provider").stdout); got != "kimi" {
		t.Errorf("cancelled setup saved provider %q", got)
	}
}

func TestDaemonLifecycle(t *testing.T) {
	t.Parallel()
	in := newInstance(t)
	in.setup()
	if s, code := in.status(); s.State != "not running" || code != 3 {
		t.Fatalf("status before start = %+v (exit %d)", s, code)
	}
	r := in.must("start", "--daemon")
	if !strings.Contains(r.stdout, "127.0.0.1:"+strconv.Itoa(in.port)) {
		t.Errorf("start --daemon output lacks the proxy address: %q", r.stdout)
	}
	s, code := in.status()
	if code != 0 || s.State != "running" || !s.Responding || s.Mode != "skills_only" || s.DataDir != in.home || s.Version != "e2e-test" {
		t.Fatalf("status = %+v (exit %d)", s, code)
	}
	if !healthy(s.ProxyURL) {
		t.Fatal("proxy not healthy after start --daemon returned")
	}
	human := in.must("status").stdout
	if !strings.Contains(human, "running (pid "+strconv.Itoa(s.PID)) || !strings.Contains(human, "recorded this run") {
		t.Errorf("status text: %q", human)
	}
	in.fails(1, "already running with data directory "+in.home+" (pid "+strconv.Itoa(s.PID), "start", "--daemon")
	in.fails(1, "already running", "start", "--no-tray")
	if s2, _ := in.status(); s2.PID != s.PID {
		t.Error("a refused second start changed the running instance")
	}
	r = in.must("stop")
	if !strings.Contains(r.stdout, "stopped (pid "+strconv.Itoa(s.PID)+")") {
		t.Errorf("stop output %q", r.stdout)
	}
	if s, code := in.status(); s.State != "not running" || code != 3 {
		t.Errorf("status after stop = %+v", s)
	}
	if _, err := os.Stat(filepath.Join(in.home, "metaclaw.pid")); !os.IsNotExist(err) {
		t.Error("pid file left after a clean stop")
	}
	log, _ := os.ReadFile(filepath.Join(in.home, "metaclaw.log"))
	if !strings.Contains(string(log), "MetaClaw started") || !strings.Contains(string(log), "MetaClaw stopped") {
		t.Errorf("log lacks start/stop lines:\n%s", log)
	}
	if strings.Contains(string(log), "sk-test-secret") {
		t.Error("the log contains the API key")
	}
	in.must("stop") // stopping a stopped MetaClaw is fine
}

func TestStalePidFile(t *testing.T) {
	t.Parallel()
	in := newInstance(t)
	in.setup()
	in.must("start", "--daemon", "--mode", "rl")
	s, _ := in.status()
	if s.Mode != "skills_only" {
		t.Errorf("rl without a Tinker key should run as skills_only, got %q", s.Mode)
	}
	// Kill it hard: the pid file stays behind.
	if err := syscall.Kill(s.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "the stale state", func() bool { st, _ := in.status(); return st.State == "stale" })
	st, code := in.status()
	if st.PID != s.PID || code != 3 {
		t.Errorf("stale status = %+v, exit %d", st, code)
	}
	if r := in.run("status"); r.code != 3 || !strings.Contains(r.stdout, "stale pid file") {
		t.Errorf("status text for stale: %q", r.stdout)
	}
	r := in.must("stop")
	if !strings.Contains(r.stdout, "removed a stale pid file") {
		t.Errorf("stop on stale: %q", r.stdout)
	}
	// A pid file naming some other live process (our own test process) is
	// not trusted either: the lock is free, so it is stale, and nothing is
	// signalled.
	pidFile := filepath.Join(in.home, "metaclaw.pid")
	info, _ := json.Marshal(map[string]any{"pid": os.Getpid(), "proxy_url": "http://127.0.0.1:1"})
	os.WriteFile(pidFile, info, 0o600)
	if st, _ := in.status(); st.State != "stale" || st.PID != os.Getpid() {
		t.Errorf("foreign pid file status = %+v", st)
	}
	in.must("stop")
	// And a fresh start works.
	in.must("start", "--daemon")
	in.must("stop")
}

func TestStartFailsWithReason(t *testing.T) {
	t.Parallel()
	in := newInstance(t)
	in.setup()
	ln, err := netListen(in.port)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	r := in.fails(1, "could not start", "start", "--daemon", "--ready-timeout", "20s")
	if !strings.Contains(r.stderr, "address already in use") {
		t.Errorf("the reason is missing: %q", r.stderr)
	}
	if s, _ := in.status(); s.State != "not running" {
		t.Errorf("after a failed start, status = %+v", s)
	}
	in.fails(2, "out of range", "start", "--port", "70000")
	in.fails(2, "allowed: madmax, rl, skills_only", "start", "--mode", "fast")
}

func TestForegroundSignal(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		in := newInstance(t)
		in.setup()
		cmd := execCommand(in, "start", "--no-tray")
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		url := "http://127.0.0.1:" + strconv.Itoa(in.port)
		testutil.Eventually(t, "the instance healthy", func() bool { return healthy(url) })
		cmd.Process.Signal(sig)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("%v: exit %v\n%s", sig, err, out.String())
			}
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("%v: did not exit", sig)
		}
		if !strings.Contains(out.String(), "MetaClaw stopped") {
			t.Errorf("%v: no clean stop in output:\n%s", sig, out.String())
		}
		if s, _ := in.status(); s.State != "not running" {
			t.Errorf("%v: status after exit = %+v", sig, s)
		}
	}
}

// TestNoArgumentsStartsWithoutTrayHost runs `metaclaw` with no arguments, as
// a double-click does, on a machine with no session bus: it says once that
// it runs without a tray icon, and serves.
func TestNoArgumentsStartsWithoutTrayHost(t *testing.T) {
	t.Parallel()
	in := newInstance(t)
	in.setup()
	cmd := execCommand(in)
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	testutil.Eventually(t, "the instance healthy", func() bool { return healthy("http://127.0.0.1:" + strconv.Itoa(in.port)) })
	testutil.Eventually(t, "the no-tray message", func() bool { return strings.Contains(out.String(), "running without a tray icon") })
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	if n := strings.Count(out.String(), "running without a tray icon"); n != 1 {
		t.Errorf("said %d times that there is no tray:\n%s", n, out.String())
	}
}
