package memory

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/metaclaw/metaclaw/app/learner/llm"
	"github.com/metaclaw/metaclaw/store/config"
)

func TestEndpointFrom(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		set     map[string]string
		want    llm.Endpoint
		wantErr bool
	}{
		{"the agent's upstream", map[string]string{"llm.provider": "openai", "llm.api_base": "https://api.openai.com/v1",
			"llm.api_key": "sk-a", "llm.model_id": "gpt-5-mini"},
			llm.Endpoint{API: llm.APIOpenAI, BaseURL: "https://api.openai.com/v1", APIKey: "sk-a", Model: "gpt-5-mini"}, false},
		{"anthropic preset", map[string]string{"llm.provider": "anthropic", "llm.api_base": "https://api.anthropic.com/v1",
			"llm.api_key": "sk-ant", "llm.model_id": "claude-x"},
			llm.Endpoint{API: llm.APIAnthropic, BaseURL: "https://api.anthropic.com/v1", APIKey: "sk-ant", Model: "claude-x"}, false},
		{"dedicated model", map[string]string{"llm.provider": "kimi", "llm.api_key": "sk-k", "memory.extract_api_base": "https://api.anthropic.com/v1",
			"memory.extract_api_key": "sk-ant-2", "memory.extract_model": "claude-haiku"},
			llm.Endpoint{API: llm.APIAnthropic, BaseURL: "https://api.anthropic.com/v1", APIKey: "sk-ant-2", Model: "claude-haiku"}, false},
		{"cheaper model on the same provider", map[string]string{"llm.provider": "custom", "llm.api_base": "http://127.0.0.1:9/v1",
			"llm.api_key": "k", "llm.model_id": "big", "memory.extract_model": "small"},
			llm.Endpoint{API: llm.APIOpenAI, BaseURL: "http://127.0.0.1:9/v1", APIKey: "k", Model: "small"}, false},
		{"no key", map[string]string{"llm.provider": "custom", "llm.api_base": "http://127.0.0.1:9/v1"}, llm.Endpoint{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := config.Defaults()
			for k, v := range tt.set {
				if err := cfg.Set(k, v); err != nil {
					t.Fatal(err)
				}
			}
			got, err := EndpointFrom(cfg)
			if tt.wantErr {
				if !errors.Is(err, ErrNoModel) || !strings.Contains(err.Error(), "llm.api_key") {
					t.Errorf("err = %v, want ErrNoModel naming the keys", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.API != tt.want.API || got.BaseURL != tt.want.BaseURL || got.APIKey != tt.want.APIKey || got.Model != tt.want.Model {
				t.Errorf("endpoint = %+v, want %+v", got, tt.want)
			}
			if got.Timeout <= 0 || got.Timeout > time.Duration(ExtractTimeout) {
				t.Errorf("timeout %v", got.Timeout)
			}
		})
	}
}
