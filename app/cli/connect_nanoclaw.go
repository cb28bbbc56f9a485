package cli

import (
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
)

// nanoclawConnector points NanoClaw at the proxy's Anthropic endpoint
// through the .env file of the NanoClaw checkout.
//
// Facts (qwibitai/nanoclaw at commit 0683c6ec, 2026-05-18): NanoClaw is a
// git checkout run from its own directory, not a package; src/env.ts
// readEnvFile reads <cwd>/.env itself (KEY=VALUE lines, # comments,
// optional matching quotes; the last line of a key wins) without loading
// it into the process environment. src/providers/claude.ts reads
// ANTHROPIC_BASE_URL from it and passes it into the agent container with
// ANTHROPIC_AUTH_TOKEN=placeholder, but only once setup has added
// `import './claude.js'` to src/providers/index.ts. The agent inside the
// container is the Claude Agent SDK: it speaks the Anthropic Messages API.
// Containers reach the host as host.docker.internal (src/container-
// runtime.ts adds --add-host=host.docker.internal:host-gateway on Linux),
// so the URL names that host, and the proxy must listen where containers
// can reach it (proxy.host; 127.0.0.1 only works with Docker Desktop).
// NanoClaw documents no restart command, and it cannot be told a context
// window (qwibitai/nanoclaw at 0683c6ec): the agent container's environment
// is TZ plus the provider's contribution (src/container-runner.ts
// buildContainerArgs; src/providers/claude.ts gives ANTHROPIC_BASE_URL and
// a placeholder ANTHROPIC_AUTH_TOKEN from .env), and the agent runner
// compacts at CLAUDE_CODE_AUTO_COMPACT_WINDOW from that environment, 165000
// when unset (container/agent-runner/src/providers/claude.ts), which no
// NanoClaw setting sets. The proxy's cut stands in (docs/agents.md).
type nanoclawConnector struct {
	dir       string
	printOnly bool
}

func (*nanoclawConnector) name() string { return "nanoclaw" }
func (*nanoclawConnector) summary() string {
	return "sets ANTHROPIC_BASE_URL in the .env of your NanoClaw checkout (--dir)"
}
func (c *nanoclawConnector) flags(fs *flag.FlagSet) {
	fs.StringVar(&c.dir, "dir", "", "the NanoClaw checkout (default: the one connected before, else the current directory)")
	fs.BoolVar(&c.printOnly, "print", false, "only print the variable to set; change no file")
}

// nanoclawExtra is what the undo record keeps of NanoClaw: its directory.
type nanoclawExtra struct {
	Dir string `json:"dir"`
}

// resolveDir finds the checkout: --dir, the one recorded by an earlier
// connect, or the current directory.
func (c *nanoclawConnector) resolveDir(r *connectRun) (string, error) {
	dir := c.dir
	if dir == "" {
		var u filesUndo
		var x nanoclawExtra
		if readJSON(r.undoFile, &u) == nil && json.Unmarshal(u.Extra, &x) == nil {
			dir = x.Dir
		}
	}
	if dir == "" {
		if r.auto {
			return "", &errNotInstalled{agent: "NanoClaw", how: "no checkout known: run `metaclaw connect nanoclaw --dir PATH` once"}
		}
		dir, _ = os.Getwd()
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(filepath.Join(dir, "src", "providers", "claude.ts")); err != nil {
		return "", &errNotInstalled{agent: "NanoClaw", how: dir + " is not a NanoClaw checkout (no src/providers/claude.ts); name it with --dir"}
	}
	return dir, nil
}

// nanoclawBaseURL is the proxy as seen from NanoClaw's containers.
func nanoclawBaseURL(t target) string {
	_, port, _ := net.SplitHostPort(t.hostPort)
	return "http://host.docker.internal:" + port
}

func (c *nanoclawConnector) connect(r *connectRun) (bool, error) {
	if c.printOnly {
		fmt.Fprintf(r.out, "Put this in the .env of your NanoClaw checkout and restart NanoClaw:\n\n  ANTHROPIC_BASE_URL=%s\n", nanoclawBaseURL(r.t))
		return false, nil
	}
	dir, err := c.resolveDir(r)
	if err != nil {
		return false, err
	}
	edit := fileEdit{path: filepath.Join(dir, ".env"), format: envFormat{},
		settings: []setting{{key: []string{"ANTHROPIC_BASE_URL"}, value: nanoclawBaseURL(r.t)}}}
	changed, err := applyFiles(r, c.name(), []fileEdit{edit}, nanoclawExtra{Dir: dir})
	if err != nil {
		return false, err
	}
	c.warn(r, dir)
	if changed && !r.dry {
		fmt.Fprintln(r.out, "Restart NanoClaw to use MetaClaw.")
	}
	return changed, nil
}

// warn says what else NanoClaw needs for the URL to work.
func (c *nanoclawConnector) warn(r *connectRun, dir string) {
	idx, err := os.ReadFile(filepath.Join(dir, "src", "providers", "index.ts"))
	if err == nil && !strings.Contains(string(idx), "'./claude.js'") {
		fmt.Fprintln(r.out, "note: src/providers/index.ts has no `import './claude.js'`, so NanoClaw does not pass ANTHROPIC_BASE_URL to its containers yet; NanoClaw's setup adds it when you choose a custom Anthropic-compatible endpoint.")
	}
	if h, _, _ := net.SplitHostPort(r.t.hostPort); h == "127.0.0.1" || h == "::1" {
		fmt.Fprintln(r.out, "note: NanoClaw's agents run in containers and reach MetaClaw at host.docker.internal; with proxy.host 127.0.0.1 that works only with Docker Desktop. On Linux set proxy.host to the Docker bridge address (e.g. 172.17.0.1) and proxy.api_key.")
	}
}

func (c *nanoclawConnector) undo(r *connectRun) error { return undoFiles(r, c.name()) }
