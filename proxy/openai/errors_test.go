package openai

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNewError(t *testing.T) {
	tests := []struct {
		name                 string
		status               int
		typ, code, msg, want string
	}{
		{"full", 400, "invalid_request_error", "invalid_json", "bad <json>",
			`{"error":{"message":"bad <json>","type":"invalid_request_error","param":null,"code":"invalid_json"}}`},
		{"no code", 502, "upstream_error", "", "down",
			`{"error":{"message":"down","type":"upstream_error","param":null,"code":null}}`},
		{"type from status", 429, "", "", "slow",
			`{"error":{"message":"slow","type":"rate_limit_error","param":null,"code":null}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, string(NewError(tt.status, tt.typ, tt.code, tt.msg))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	re := invalid(CodeInvalidType, "model", "'model' must be a string")
	want := `{"error":{"message":"'model' must be a string","type":"invalid_request_error","param":"model","code":"invalid_type"}}`
	if got := string(re.Body()); got != want {
		t.Errorf("Body() = %s", got)
	}
	if re.Error() != re.Message {
		t.Error("Error() should return the message")
	}
}

func TestErrorTypeForStatus(t *testing.T) {
	want := map[int]string{
		400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
		404: "not_found_error", 409: "invalid_request_error", 413: "request_too_large",
		422: "invalid_request_error", 429: "rate_limit_error", 500: "server_error",
		502: "upstream_error", 503: "server_error", 504: "timeout_error", 529: "server_error",
	}
	for status, typ := range want {
		if got := ErrorTypeForStatus(status); got != typ {
			t.Errorf("ErrorTypeForStatus(%d) = %q, want %q", status, got, typ)
		}
	}
	if got := (&StreamError{Message: "m"}).Error(); got != "stream error: m" {
		t.Errorf("got %q", got)
	}
	if got := (&StreamError{Type: "t", Message: "m"}).Error(); got != "stream error: t: m" {
		t.Errorf("got %q", got)
	}
}
