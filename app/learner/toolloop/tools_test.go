package toolloop

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestToolsStayInTheWorkspace(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("SECRET"), 0o600); err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	tools, err := OpenTools(ws, Shell{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer tools.Close()
	ctx := context.Background()
	tests := []struct {
		name, tool, args string
		want             string // part of the answer
	}{
		{"write creates folders", "write", `{"path":"day01/20260316_report.json","content":"{\"owner\":\"sam\"}"}`, "wrote 15 bytes"},
		{"read back", "read", `{"path":"/day01/20260316_report.json"}`, `{"owner":"sam"}`},
		{"list", "list", `{"path":"day01"}`, "20260316_report.json"},
		{"list the root", "list", `{}`, "day01/"},
		{"dot-dot stays inside", "read", `{"path":"../../../../etc/hostname"}`, "error:"},
		{"a link out is refused", "read", `{"path":"link/secret.txt"}`, "error:"},
		{"writing through a link is refused", "write", `{"path":"link/new.txt","content":"x"}`, "error:"},
		{"bad arguments", "read", `{"path":`, "error: the arguments are not a JSON object"},
		{"unknown tool", "browse", `{}`, "unknown tool"},
		{"read lines", "read", `{"path":"day01/20260316_report.json","offset":1,"limit":1}`, `{"owner":"sam"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tools.Call(ctx, tt.tool, tt.args)
			if !strings.Contains(got, tt.want) {
				t.Errorf("%s %s = %q, want it to contain %q", tt.tool, tt.args, got, tt.want)
			}
			if strings.Contains(got, "SECRET") {
				t.Errorf("%s %s read outside the workspace: %q", tt.tool, tt.args, got)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(outside, "new.txt")); err == nil {
		t.Error("a write through the link landed outside the workspace")
	}
}

func TestExecRunsInTheWorkspaceWithATimeLimit(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("sh commands")
	}
	ws := t.TempDir()
	tools, err := OpenTools(ws, Shell{Timeout: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer tools.Close()
	ctx := context.Background()
	if got := tools.Call(ctx, "exec", `{"command":"echo hi > f.txt; cat f.txt; exit 3"}`); got != "exit code 3\nhi\n" {
		t.Errorf("exec = %q", got)
	}
	if _, err := os.Stat(filepath.Join(ws, "f.txt")); err != nil {
		t.Errorf("the command did not run in the workspace: %v", err)
	}
	start := time.Now()
	got := tools.Call(ctx, "exec", `{"command":"sleep 30 & sleep 30; echo never"}`)
	if !strings.Contains(got, "exit code -1") || !strings.Contains(got, "killed after") || strings.Contains(got, "never") {
		t.Errorf("a command past its time limit = %q", got)
	}
	if time.Since(start) > 20*time.Second {
		t.Errorf("the time limit did not stop the command and its children")
	}
}

// TestIsolatedCommandsHaveNoNetwork connects to a listener on loopback
// from a command: it gets through without isolation and not with it.
func TestIsolatedCommandsHaveNoNetwork(t *testing.T) {
	if os.Getenv("TOOLLOOP_DIAL_HELPER") != "" {
		return
	}
	ctx := context.Background()
	if err := ProbeIsolation(ctx); err != nil {
		if os.Getenv("METACLAW_E2E") == "1" && runtime.GOOS == "linux" {
			t.Fatalf("no network isolation on Linux under METACLAW_E2E=1: %v", err)
		}
		t.Skipf("no network isolation here: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exe + " -test.run=TestDialHelper"
	env := append(os.Environ(), "TOOLLOOP_DIAL_HELPER="+ln.Addr().String())
	open := Shell{Env: env, Timeout: 30 * time.Second}
	if r := open.Run(ctx, t.TempDir(), cmd); r.ExitCode != 0 {
		t.Fatalf("without isolation the dial failed: %+v", r)
	}
	closed := Shell{Env: env, Timeout: 30 * time.Second, Isolated: true}
	r := closed.Run(ctx, t.TempDir(), cmd)
	if r.ExitCode == 0 {
		t.Fatalf("an isolated command reached %s: %+v", ln.Addr(), r)
	}
	if !strings.Contains(r.Output, "dial failed") {
		t.Errorf("the isolated helper did not run as expected: %+v", r)
	}
	if runtime.GOOS == "linux" {
		// The isolated command's network namespace has a loopback, down,
		// and no other interface.
		r := closed.Run(ctx, t.TempDir(), "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '")
		if r.ExitCode != 0 || strings.TrimSpace(r.Output) != "lo" {
			t.Errorf("an isolated command sees interfaces %q, want only lo", r.Output)
		}
	}
}

// TestDialHelper is run by TestIsolatedCommandsHaveNoNetwork as a command.
func TestDialHelper(t *testing.T) {
	addr := os.Getenv("TOOLLOOP_DIAL_HELPER")
	if addr == "" {
		t.Skip("a helper of TestIsolatedCommandsHaveNoNetwork")
	}
	c, err := net.DialTimeout("tcp", addr, 3*time.Second)
	if err != nil {
		os.Stdout.WriteString("dial failed: " + err.Error() + "\n")
		os.Exit(7)
	}
	c.Close()
	os.Exit(0)
}
