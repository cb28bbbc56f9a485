package proxy_test

import (
	"net/http"
	"testing"

	"github.com/metaclaw/metaclaw/proxy/fakeupstream"
)

// TestSetConfigAppliesAtOnce: a new upstream, key and fallback take effect
// for the next request, without a restart.
func TestSetConfigAppliesAtOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	second := fakeupstream.New()
	url, err := second.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	cfg := config0(e)
	must(t, cfg.Set("llm.api_base", url+"/v1"))
	must(t, cfg.Set("llm.api_key", "sk-new-key-123456"))
	e.srv.SetConfig(cfg)
	if status, b, _ := e.post("/v1/chat/completions", hi); status != 200 {
		t.Fatalf("status %d: %s", status, b)
	}
	reqs := second.Requests()
	if len(reqs) == 0 || reqs[len(reqs)-1].Header.Get("Authorization") != "Bearer sk-new-key-123456" {
		t.Fatalf("the new upstream got %d requests (last auth %q)", len(reqs), lastAuth(reqs))
	}
	// A fallback added live takes over when the primary fails.
	second.FailNext(1, http.StatusServiceUnavailable)
	must(t, cfg.Set("proxy.max_retries", "0"))
	must(t, cfg.Set("proxy.fallback_api_base", e.upURL+"/v1"))
	must(t, cfg.Set("proxy.fallback_api_key", "sk-fallback-123456"))
	e.srv.SetConfig(cfg)
	before := len(e.up.Requests())
	if status, b, _ := e.post("/v1/chat/completions", hi); status != 200 {
		t.Fatalf("with the fallback: status %d: %s", status, b)
	}
	if len(e.up.Requests()) != before+1 {
		t.Error("the live fallback was not used")
	}
}

func lastAuth(reqs []fakeupstream.Recorded) string {
	if len(reqs) == 0 {
		return ""
	}
	return reqs[len(reqs)-1].Header.Get("Authorization")
}
