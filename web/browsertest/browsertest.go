// Package browsertest starts a headless chromium for tests that drive a
// real browser: the web page's tests and the proxy's browser-origin test
// (app/cmd/metaclaw). Only test code imports it.
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Chromium finds Debian's chromium. Without it the test is skipped, unless
// METACLAW_E2E=1, where a missing browser fails it.
func Chromium(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"/usr/bin/chromium", "chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("METACLAW_E2E") == "1" {
		t.Fatal("chromium is not installed (apt-get install chromium); METACLAW_E2E=1 needs it")
	}
	t.Skip("chromium not installed; set METACLAW_E2E=1 to make this a failure")
	return ""
}

// Start starts a headless chromium with a fresh profile in which
// rebind.test resolves to 127.0.0.1 (a DNS-rebinding stand-in), and returns
// a context for its first tab, bounded to three minutes. The browser ends
// with the test.
func Start(t testing.TB) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(Chromium(t)),
		chromedp.NoSandbox, // required as root
		chromedp.DisableGPU,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("no-proxy-server", true),
		chromedp.Flag("host-resolver-rules", "MAP rebind.test 127.0.0.1"),
		chromedp.Env("DISPLAY="),
	)
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, cancelB := chromedp.NewContext(actx)
	// The first action starts the browser, which lives as long as bctx:
	// only later actions get the timeout.
	if err := chromedp.Do(bctx); err != nil {
		cancelB()
		cancelA()
		t.Fatalf("start chromium: %v", err)
	}
	ctx, cancelT := context.WithTimeout(bctx, 3*time.Minute)
	t.Cleanup(func() { cancelT(); cancelB(); cancelA() })
	return ctx
}
