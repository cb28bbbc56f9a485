package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// startEnv is the Env configureAgent runs in for a connectEnv.
func (c *connectEnv) startEnv() *Env {
	c.stdout.Reset()
	c.stderr.Reset()
	return &Env{Stdin: strings.NewReader(""), Stdout: &c.stdout, Stderr: &c.stderr, Version: "test",
		Getenv: func(k string) string {
			switch k {
			case "HOME":
				return c.userHome
			case "PATH":
				return c.path
			}
			return ""
		}}
}

// TestConnectDryRunEveryAgent is issue 18's "flag provided but not
// defined": every agent the help lists takes --dry-run and --undo.
func TestConnectDryRunEveryAgent(t *testing.T) {
	for _, con := range connectors() {
		t.Run(con.name(), func(t *testing.T) {
			c := newConnectEnv(t)
			for _, args := range [][]string{{"--dry-run"}, {"--undo", "--dry-run"}} {
				code := c.run(append([]string{"connect", con.name()}, args...)...)
				if code == 2 || strings.Contains(c.stderr.String(), "not defined") {
					t.Errorf("connect %s %v: exit %d: %s", con.name(), args, code, c.stderr.String())
				}
			}
			if _, err := os.Stat(filepath.Join(c.home, "connect")); !os.IsNotExist(err) {
				t.Error("a dry run wrote into the data dir")
			}
		})
	}
}

// TestStartConfiguresClawType runs what `metaclaw start` runs once the
// proxy answers, for a file-based agent: it connects, changes nothing the
// second time, and a chosen none or no choice leaves the agent alone.
func TestStartConfiguresClawType(t *testing.T) {
	tests := []struct {
		name     string
		settings []string
		want     string
		touched  bool
	}{
		{"not chosen", nil, "No agent is set up", false},
		{"none", []string{"claw_type", "none"}, "", false},
		{"hermes", []string{"claw_type", "hermes"}, "Changed ", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newConnectEnv(t, tt.settings...)
			os.MkdirAll(filepath.Join(c.userHome, ".hermes"), 0o700)
			configureAgent(c.startEnv(), "http://127.0.0.1:31999", false)
			if !strings.Contains(c.stdout.String(), tt.want) {
				t.Errorf("output %q lacks %q", c.stdout.String(), tt.want)
			}
			cfg := filepath.Join(c.userHome, ".hermes", "config.yaml")
			data, err := os.ReadFile(cfg)
			if (err == nil) != tt.touched {
				t.Fatalf("config.yaml written: %v, want %v", err == nil, tt.touched)
			}
			if !tt.touched {
				return
			}
			// The running proxy's address wins over the configured port.
			if !strings.Contains(string(data), "base_url: http://127.0.0.1:31999/v1") {
				t.Errorf("config.yaml:\n%s", data)
			}
			configureAgent(c.startEnv(), "http://127.0.0.1:31999", false)
			if !strings.Contains(c.stdout.String(), "nothing changed") {
				t.Errorf("second start: %q", c.stdout.String())
			}
			if again, _ := os.ReadFile(cfg); string(again) != string(data) {
				t.Error("a second start changed config.yaml")
			}
			c.must(t, "connect", "hermes", "--undo")
			if _, err := os.Stat(cfg); !os.IsNotExist(err) {
				t.Error("undo left the config.yaml connect created")
			}
		})
	}
}

// TestStartClawTypeNotInstalled keeps MetaClaw running and says what is
// missing when the chosen agent is not on the machine.
func TestStartClawTypeNotInstalled(t *testing.T) {
	c := newConnectEnv(t, "claw_type", "zeroclaw")
	configureAgent(c.startEnv(), "http://127.0.0.1:31999", false)
	if out := c.stdout.String(); !strings.Contains(out, "claw_type is zeroclaw, but ZeroClaw does not seem to be installed") || !strings.Contains(out, "zeroclaw quickstart") {
		t.Errorf("output: %q %q", out, c.stderr.String())
	}
}

// TestStartWeChat drives a fake openclaw that records its arguments: the
// plugin is installed once, with the documented commands, and
// --wechat-relogin runs the QR login.
func TestStartWeChat(t *testing.T) {
	c := newConnectEnv(t, "wechat.enabled", "true", "claw_type", "none")
	configureAgent(c.startEnv(), "http://127.0.0.1:31999", false)
	if out := c.stdout.String(); !strings.Contains(out, "needs OpenClaw") || !strings.Contains(out, "npm install -g openclaw") {
		t.Errorf("without OpenClaw: %q", out)
	}

	oc := newFakeOpenClaw(t)
	c.path = oc.dir
	configureAgent(c.startEnv(), "http://127.0.0.1:31999", false)
	log := oc.takeLog(t)
	for _, want := range []string{"plugins list --json\n", "plugins install @tencent-weixin/openclaw-weixin@latest\n", "gateway restart\n"} {
		if !strings.Contains(log, want) {
			t.Errorf("openclaw was not run with %q; log:\n%s", want, log)
		}
	}
	if strings.Contains(log, "channels login") || !strings.Contains(c.stdout.String(), "metaclaw start --wechat-relogin") {
		t.Errorf("without a terminal the login should be explained, not run; log:\n%s\nout: %s", log, c.stdout.String())
	}

	// Installed and enabled: nothing to do, no restart.
	os.WriteFile(filepath.Join(oc.dir, "plugins.json"), []byte(`{"plugins":[{"id":"openclaw-weixin","enabled":true}]}`), 0o644)
	configureAgent(c.startEnv(), "http://127.0.0.1:31999", false)
	if log := oc.takeLog(t); log != "plugins list --json\n" {
		t.Errorf("second start ran more than the list:\n%s", log)
	}

	// Installed but disabled: enable it.
	os.WriteFile(filepath.Join(oc.dir, "plugins.json"), []byte(`{"plugins":[{"id":"openclaw-weixin","enabled":false}]}`), 0o644)
	configureAgent(c.startEnv(), "http://127.0.0.1:31999", false)
	if log := oc.takeLog(t); !strings.Contains(log, "plugins enable openclaw-weixin\n") || !strings.Contains(log, "gateway restart") {
		t.Errorf("disabled plugin:\n%s", log)
	}

	// --wechat-relogin forces a new QR login.
	os.WriteFile(filepath.Join(oc.dir, "plugins.json"), []byte(`{"plugins":[{"id":"openclaw-weixin","enabled":true}]}`), 0o644)
	configureAgent(c.startEnv(), "http://127.0.0.1:31999", true)
	if log := oc.takeLog(t); !strings.Contains(log, "channels login --channel openclaw-weixin\n") || !strings.Contains(log, "gateway restart") {
		t.Errorf("relogin:\n%s", log)
	}
}

// TestConnectNemoClaw drives a fake openshell: connect registers the
// provider and routes inference to it; undo restores the route NemoClaw's
// registry recorded and deletes the provider.
func TestConnectNemoClaw(t *testing.T) {
	c := newConnectEnv(t, "proxy.api_key", testProxyKey)
	bin := t.TempDir()
	logf := filepath.Join(bin, "log")
	script := "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '" + logf + "'\ncase \"$1 $2\" in \"provider create\") [ -f '" + bin + "/exists' ] && { echo AlreadyExists >&2; exit 1; } ;; esac\nexit 0\n"
	if err := os.WriteFile(filepath.Join(bin, "openshell"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	c.path = bin
	os.MkdirAll(filepath.Join(c.userHome, ".nemoclaw"), 0o700)
	os.WriteFile(filepath.Join(c.userHome, ".nemoclaw", "sandboxes.json"),
		[]byte(`{"sandboxes":{"my-assistant":{"provider":"nvidia-nim","model":"nvidia/nemotron-3-super-120b-a12b"}},"defaultSandbox":"my-assistant"}`), 0o600)
	take := func() string { data, _ := os.ReadFile(logf); os.Remove(logf); return string(data) }

	if out := c.must(t, "connect", "nemoclaw", "--dry-run"); !strings.Contains(out, "Would run: openshell provider create --name metaclaw --type openai --credential OPENAI_API_KEY=******** --config OPENAI_BASE_URL=http://host.openshell.internal:31234/v1") {
		t.Errorf("dry run:\n%s", out)
	}
	if log := take(); log != "" {
		t.Errorf("dry run ran openshell:\n%s", log)
	}
	os.WriteFile(filepath.Join(bin, "exists"), nil, 0o644)
	c.must(t, "connect", "nemoclaw")
	want := "provider create --name metaclaw --type openai --credential OPENAI_API_KEY=" + testProxyKey + " --config OPENAI_BASE_URL=http://host.openshell.internal:31234/v1\n" +
		"provider update metaclaw --credential OPENAI_API_KEY=" + testProxyKey + " --config OPENAI_BASE_URL=http://host.openshell.internal:31234/v1\n" +
		"inference set --no-verify --provider metaclaw --model m1\n"
	if log := take(); log != want {
		t.Errorf("connect ran:\n%s\nwant:\n%s", log, want)
	}
	if out := c.must(t, "connect", "nemoclaw"); !strings.Contains(out, "nothing changed") || take() != "" {
		t.Errorf("second connect: %q", out)
	}
	c.must(t, "connect", "nemoclaw", "--undo")
	want = "inference set --no-verify --provider nvidia-nim --model nvidia/nemotron-3-super-120b-a12b\nprovider delete metaclaw\n"
	if log := take(); log != want {
		t.Errorf("undo ran:\n%s\nwant:\n%s", log, want)
	}
	if code := c.run("connect", "nemoclaw", "--undo"); code != 1 || !strings.Contains(c.stderr.String(), "nothing to undo") {
		t.Errorf("second undo: exit %d %q", code, c.stderr.String())
	}
}
