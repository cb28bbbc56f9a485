package anthropic

import "testing"

func TestNewError(t *testing.T) {
	tests := []struct {
		status    int
		typ, msg  string
		wantBytes string
	}{
		{400, "invalid_request_error", "bad <x>", `{"type":"error","error":{"type":"invalid_request_error","message":"bad <x>"}}`},
		{529, "", "Overloaded", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`},
	}
	for _, tt := range tests {
		if got := string(NewError(tt.status, tt.typ, tt.msg)); got != tt.wantBytes {
			t.Errorf("NewError(%d) = %s", tt.status, got)
		}
	}
	re := invalid(CodeInvalidJSON, "nope")
	if re.Error() != "nope" || string(re.Body()) != `{"type":"error","error":{"type":"invalid_request_error","message":"nope"}}` {
		t.Errorf("RequestError = %v %s", re, re.Body())
	}
}

func TestErrorTypeForStatus(t *testing.T) {
	want := map[int]string{
		400: "invalid_request_error", 401: "authentication_error", 402: "billing_error",
		403: "permission_error", 404: "not_found_error", 409: "invalid_request_error",
		413: "request_too_large", 429: "rate_limit_error", 500: "api_error", 502: "api_error",
		503: "overloaded_error", 504: "timeout_error", 529: "overloaded_error",
	}
	for status, typ := range want {
		if got := ErrorTypeForStatus(status); got != typ {
			t.Errorf("ErrorTypeForStatus(%d) = %q, want %q", status, got, typ)
		}
	}
}
