package backend

import (
	"testing"

	"github.com/metaclaw/metaclaw/app/learner/tinker"
	"github.com/metaclaw/metaclaw/app/learner/weaver"
)

func TestNewPicksTheProtocol(t *testing.T) {
	t.Parallel()
	tests := []struct {
		backend, baseURL string
		weaver           bool
	}{
		{"weaver", "", true},
		{"auto", "https://weaver-console.nex-agi.cn", true},
		{"tinker", "", false},
		{"mint", "", false},
		{"auto", "", false},
	}
	for _, tt := range tests {
		c, err := New(tinker.Options{Backend: tt.backend, BaseURL: tt.baseURL, APIKey: "sk-x"})
		if err != nil {
			t.Fatalf("%s %s: %v", tt.backend, tt.baseURL, err)
		}
		if _, isWeaver := c.(*weaver.Client); isWeaver != tt.weaver {
			t.Errorf("%s %q: %T", tt.backend, tt.baseURL, c)
		}
	}
	if _, err := New(tinker.Options{Backend: "weaver"}); err == nil {
		t.Error("no key accepted")
	}
}
