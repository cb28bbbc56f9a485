package fakeweaver

import (
	"net/http"
)

type sampler struct {
	id, base, modelPath string
}

// SampleRequest is a sample the server was asked for.
type SampleRequest struct {
	SamplerID  string
	BaseModel  string
	ModelPath  string // "" for the base model
	Prompt     []int
	NumSamples int
	MaxTokens  int
	Stop       []string
	Params     map[string]any // sampling_params as sent
}

// SampleRecord is a served sample: the request and the tokens returned.
type SampleRecord struct {
	SampleRequest
	Sequences [][]int
}

func (s *Server) createSampler(r *http.Request, body map[string]any) (int, any) {
	sess, ok := s.sessions[r.PathValue("id")]
	if !ok {
		return apiError(http.StatusNotFound, "not_found", "no such session")
	}
	if seq, ok := intOf(body["sampling_session_seq_id"]); !ok || seq < 1 {
		return apiError(http.StatusBadRequest, "invalid_request", "sampling_session_seq_id must be a positive integer")
	}
	base, _ := body["base_model"].(string)
	path, _ := body["model_path"].(string)
	if base == "" {
		return apiError(http.StatusBadRequest, "invalid_request", "base_model is required")
	}
	if path != "" {
		if ck, ok := s.checkpoints[path]; !ok || ck.Type != "sampler" {
			return apiError(http.StatusNotFound, "not_found", "no sampler weights at "+path)
		}
	}
	sm := &sampler{id: s.newID("sampler"), base: base, modelPath: path}
	s.samplers[sm.id] = sm
	view := map[string]any{"id": sm.id, "base_model": base, "model_path": path, "session_id": sess.id}
	if path == "" {
		return http.StatusCreated, view
	}
	// Exported weights are synced to the sampler in the background.
	st, op := s.startOp("sampling-sessions", map[string]any{"synced": true})
	return st, map[string]any{"sampling_session": view, "sync_operation": op}
}

func (s *Server) sample(r *http.Request, body map[string]any) (int, any) {
	sm, ok := s.samplers[r.PathValue("id")]
	if !ok {
		return apiError(http.StatusNotFound, "not_found", "no such sampling session")
	}
	prompt, err := promptOf(body["prompt"])
	n, okN := intOf(body["num_samples"])
	params, okP := body["sampling_params"].(map[string]any)
	if err != nil || !okN || n < 1 || !okP {
		return apiError(http.StatusBadRequest, "invalid_request", "prompt, num_samples and sampling_params are required")
	}
	req := SampleRequest{SamplerID: sm.id, BaseModel: sm.base, ModelPath: sm.modelPath, Prompt: prompt,
		NumSamples: n, Params: params}
	req.MaxTokens, _ = intOf(params["max_tokens"])
	if stop, ok := params["stop"].([]any); ok {
		for _, x := range stop {
			str, isStr := x.(string)
			if !isStr {
				return apiError(http.StatusBadRequest, "invalid_request", "sampling_params.stop takes strings")
			}
			req.Stop = append(req.Stop, str)
		}
	}
	for _, k := range []string{"temperature", "top_p", "top_k"} {
		if _, ok := params[k]; !ok {
			return apiError(http.StatusBadRequest, "invalid_request", "sampling_params."+k+" is required")
		}
	}
	seqs := s.generate(req)
	s.samples = append(s.samples, SampleRecord{SampleRequest: req, Sequences: seqs})
	var out []any
	for _, toks := range seqs {
		lps := make([]float64, len(toks))
		for i, t := range toks {
			lps[i] = targetLogprob(len(s.samples), t)
		}
		out = append(out, map[string]any{"tokens": toks, "logprobs": lps, "stop_reason": "stop"})
	}
	return s.startOp("samples", map[string]any{"result": map[string]any{"sequences": out}})
}

// generate is the responder's answer, or a pure function of the prompt.
func (s *Server) generate(req SampleRequest) [][]int {
	if s.responder != nil {
		if seqs := s.responder(req); len(seqs) > 0 {
			return seqs
		}
	}
	seqs := make([][]int, req.NumSamples)
	for i := range seqs {
		length := 3
		if req.MaxTokens > 0 {
			length = min(length, req.MaxTokens)
		}
		for j := range length {
			seqs[i] = append(seqs[i], (req.Prompt[0]*31+i*7+j)%1000+1)
		}
	}
	return seqs
}

func promptOf(raw any) ([]int, error) {
	d, err := parseDatum(map[string]any{"model_input": raw, "loss_fn_inputs": map[string]any{}}, nil)
	return d.input, err
}

// SetResponder scripts the tokens of each sample (nil or no sequences:
// the default tokens).
func (s *Server) SetResponder(fn func(SampleRequest) [][]int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.responder = fn
}

// Samples returns the samples served so far.
func (s *Server) Samples() []SampleRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]SampleRecord(nil), s.samples...)
}
