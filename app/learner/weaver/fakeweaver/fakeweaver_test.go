package fakeweaver

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"
)

// post sends body to path with the key and returns the status and answer.
func post(t *testing.T, s *Server, key, path string, body any) (int, map[string]any) {
	t.Helper()
	data, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, s.URL()+path, bytes.NewReader(data))
	req.Header.Set("X-WEAVER-API-KEY", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

func TestStrictness(t *testing.T) {
	t.Parallel()
	s := New(Options{})
	defer s.Close()
	key := s.APIKey()
	if st, body := post(t, s, "wrong", "/api/v1/sessions", map[string]any{"tags": []string{}}); st != 401 || body["error"] != "unauthorized" {
		t.Errorf("wrong key: %d %v", st, body)
	}
	_, sess := post(t, s, key, "/api/v1/sessions", map[string]any{"tags": []string{"t"}})
	sid, _ := sess["id"].(string)
	_, m := post(t, s, key, "/api/v1/sessions/"+sid+"/models", map[string]any{"model_seq_id": 1, "base_model": "b", "lora_config": map[string]any{"rank": 4}})
	mid, _ := m["id"].(string)
	datum := map[string]any{"model_input": map[string]any{"chunks": []any{map[string]any{"type": "encoded_text", "tokens": []int{1, 2}}}},
		"loss_fn_inputs": map[string]any{"target_tokens": map[string]any{"data": []int{2, 3}, "dtype": "int64"},
			"weights": map[string]any{"data": []float64{0, 1}, "dtype": "float32"}}}
	fb := func(seq int, d any) (int, map[string]any) {
		return post(t, s, key, "/api/v1/models/"+mid+"/forward-backward-passes", map[string]any{"payload": map[string]any{
			"model_id": mid, "seq_id": seq, "forward_backward_input": map[string]any{"loss_fn": "cross_entropy", "data": []any{d}}}})
	}
	tests := []struct {
		name   string
		seq    int
		datum  any
		status int
	}{
		{"seq must start at 1", 2, datum, 409},
		{"well-formed", 1, datum, 202},
		{"seq reused", 1, datum, 409},
		{"wrong inputs for the loss", 2, map[string]any{"model_input": datum["model_input"], "loss_fn_inputs": map[string]any{}}, 400},
	}
	for _, tt := range tests {
		if st, body := fb(tt.seq, tt.datum); st != tt.status {
			t.Errorf("%s: %d %v, want %d", tt.name, st, body, tt.status)
		}
	}
}
