package faketinker

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"
)

// SampleRequest is one asample as the sampler sees it.
type SampleRequest struct {
	SamplingSessionID string
	SeqID             int
	BaseModel         string
	// ModelPath is the sampler checkpoint that serves the request, ""
	// for the base model.
	ModelPath      string
	Prompt         []int
	NumSamples     int
	MaxTokens      int // 0 = not set
	StopTokens     []int
	StopStrings    []string
	Seed           *int64
	Temperature    float64
	PromptLogprobs bool
}

// SampleRecord is a served asample and the completions it returned.
type SampleRecord struct {
	SampleRequest
	Sequences   [][]int
	StopReasons []string
}

// sampler is a sampling session.
type sampler struct {
	id, session, baseModel, modelPath string
	seq                               *sequencer
}

func (s *Server) createSamplingSession(_ context.Context, c *call) reply {
	var req struct {
		SessionID    string `json:"session_id"`
		SamplerSeqID *int   `json:"sampling_session_seq_id"`
		BaseModel    string `json:"base_model"`
		ModelPath    string `json:"model_path"`
	}
	if rep, good := decode(c, &req); !good {
		return rep
	}
	seq, rep, good := seqOf(req.SamplerSeqID, "create_sampling_session")
	if !good {
		return rep
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if rep, good := s.requireSession(req.SessionID); !good {
		return rep
	}
	base, rep, good := s.st.resolveSampler(req.BaseModel, req.ModelPath)
	if !good {
		return rep
	}
	id := fmt.Sprintf("%s:sample:%d", req.SessionID, seq)
	if s.st.samplers[id] != nil {
		return fail(http.StatusBadRequest, "sampling_session_seq_id %d already used", seq)
	}
	s.st.samplers[id] = &sampler{id: id, session: req.SessionID, baseModel: base, modelPath: req.ModelPath, seq: newSequencer(0)}
	return ok(map[string]string{"sampling_session_id": id})
}

// resolveSampler checks a base model or sampler path and returns the base
// model.
func (st *state) resolveSampler(base, path string) (string, reply, bool) {
	if path == "" {
		if base == "" {
			return "", fail(http.StatusBadRequest, "need base_model or model_path"), false
		}
		return base, reply{}, true
	}
	if !strings.HasPrefix(path, "tinker://") {
		return "", fail(http.StatusBadRequest, "model_path %q must start with tinker://", path), false
	}
	ck := st.checkpoints[path]
	switch {
	case ck == nil:
		return "", fail(http.StatusNotFound, "unknown model_path %q", path), false
	case ck.Kind != KindSampler:
		return "", fail(http.StatusBadRequest, "%q is not sampler weights", path), false
	case base != "" && base != ck.BaseModel:
		return "", fail(http.StatusBadRequest, "%q was trained from %s, not %s", path, ck.BaseModel, base), false
	}
	return ck.BaseModel, reply{}, true
}

func (s *Server) asample(_ context.Context, c *call) reply {
	var req wireSample
	if rep, good := decode(c, &req); !good {
		return rep
	}
	sr, err := sampleRequest(req, s.opts.StopStringTokens)
	if err != nil {
		return fail(http.StatusBadRequest, "asample: %v", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if req.SamplingSessionID == "" {
		return s.adhocSample(c, req, sr)
	}
	sm := s.st.samplers[req.SamplingSessionID]
	if sm == nil {
		return fail(http.StatusNotFound, "unknown sampling_session_id %q", req.SamplingSessionID)
	}
	seq, rep, good := seqOf(req.SeqID, "asample")
	if !good {
		return rep
	}
	sr.SeqID, sr.BaseModel, sr.ModelPath = seq, sm.baseModel, sm.modelPath
	return s.st.admit(sm.seq, seq, c, func(j *job) { s.runSample(sr, j) })
}

// adhocSample serves an asample that names base_model/model_path instead
// of a session; it is not sequenced.
func (s *Server) adhocSample(c *call, req wireSample, sr SampleRequest) reply {
	base, rep, good := s.st.resolveSampler(req.BaseModel, req.ModelPath)
	if !good {
		return rep
	}
	sr.SeqID, sr.BaseModel, sr.ModelPath = -1, base, req.ModelPath
	j := newJob()
	f := s.st.newFuture(c.endpoint, j)
	s.runSample(sr, j)
	return ok(futureBody(f))
}

// sampleRequest converts the wire form.
func sampleRequest(req wireSample, stopStrings map[string]int) (SampleRequest, error) {
	prompt, good := req.Prompt.tokens()
	if !good || len(prompt) == 0 {
		return SampleRequest{}, fmt.Errorf("prompt must be non-empty encoded_text")
	}
	n := req.NumSamples
	if n == 0 {
		n = 1
	}
	sp := req.SamplingParams
	sr := SampleRequest{SamplingSessionID: req.SamplingSessionID, Prompt: prompt, NumSamples: n,
		MaxTokens: sp.MaxTokens, Seed: sp.Seed, Temperature: 1, PromptLogprobs: req.PromptLogprobs}
	if sp.Temperature != nil {
		sr.Temperature = *sp.Temperature
	}
	var err error
	sr.StopTokens, sr.StopStrings, err = parseStop(sp.Stop)
	for _, str := range sr.StopStrings {
		if t, found := stopStrings[str]; found {
			sr.StopTokens = append(sr.StopTokens, t)
		}
	}
	return sr, err
}

// parseStop reads stop: null, a string, a list of strings or of ints.
func parseStop(raw json.RawMessage) ([]int, []string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil, nil
	}
	var str string
	if json.Unmarshal(raw, &str) == nil {
		return nil, []string{str}, nil
	}
	var ints []int
	if json.Unmarshal(raw, &ints) == nil {
		return ints, nil, nil
	}
	var strs []string
	if json.Unmarshal(raw, &strs) == nil {
		return nil, strs, nil
	}
	return nil, nil, fmt.Errorf("stop must be a string or a list of strings or ints")
}

// runSample generates the completions and completes j after the
// configured delay; called with s.mu held.
func (s *Server) runSample(sr SampleRequest, j *job) {
	j.sample = true
	s.st.samplesInFlight++
	s.st.maxSamplesInFlight = max(s.st.maxSamplesInFlight, s.st.samplesInFlight)
	var script [][]int
	if s.st.responder != nil {
		script = s.st.responder(sr)
	}
	rec := SampleRecord{SampleRequest: sr}
	seqs := make([]wireSequence, sr.NumSamples)
	longest := 0
	for i := range seqs {
		seqs[i] = s.generate(sr, i, script)
		rec.Sequences = append(rec.Sequences, seqs[i].Tokens)
		rec.StopReasons = append(rec.StopReasons, seqs[i].StopReason)
		longest = max(longest, len(seqs[i].Tokens))
	}
	s.st.samples = append(s.st.samples, rec)
	body := map[string]any{"type": "sample", "sequences": seqs}
	if sr.PromptLogprobs {
		body["prompt_logprobs"] = promptLogprobs(sr)
	}
	if d := s.st.sampleDelayFor(longest); d > 0 {
		time.AfterFunc(d, func() { j.complete(body) })
		return
	}
	j.complete(body)
}

// generate makes completion i: scripted if the responder gave one, else
// drawn from a PRNG seeded by (prompt, checkpoint, seed, index).
func (s *Server) generate(sr SampleRequest, i int, script [][]int) wireSequence {
	stops := map[int]bool{}
	for _, t := range sr.StopTokens {
		stops[t] = true
	}
	var toks []int
	if i < len(script) && script[i] != nil {
		toks = append([]int(nil), script[i]...)
	} else {
		toks = s.randomTokens(sr, i)
	}
	toks, reason := cut(toks, stops, sr.MaxTokens)
	base := sampleSeed(sr, i)
	lps := make([]float64, len(toks))
	for k, t := range toks {
		lps[k] = fakeLogprob(base[0], k, t)
	}
	return wireSequence{StopReason: reason, Tokens: toks, Logprobs: lps}
}

// randomTokens draws 1..MaxSampleLen tokens in [VocabLo, VocabHi) that
// are not stop tokens, then ends with the first stop token if any.
func (s *Server) randomTokens(sr SampleRequest, i int) []int {
	seed := sampleSeed(sr, i)
	rng := rand.New(rand.NewPCG(seed[0], seed[1]))
	stops := map[int]bool{}
	for _, t := range sr.StopTokens {
		stops[t] = true
	}
	n := 1 + rng.IntN(s.opts.MaxSampleLen)
	toks := make([]int, 0, n+1)
	for len(toks) < n {
		if t := s.opts.VocabLo + rng.IntN(s.opts.VocabHi-s.opts.VocabLo); !stops[t] {
			toks = append(toks, t)
		}
	}
	if len(sr.StopTokens) > 0 {
		toks = append(toks, sr.StopTokens[0])
	}
	return toks
}

// cut ends toks after the first stop token ("stop") or at maxTokens
// ("length").
func cut(toks []int, stops map[int]bool, maxTokens int) ([]int, string) {
	n := len(toks)
	if maxTokens > 0 && n > maxTokens {
		n = maxTokens
	}
	for k := range n {
		if stops[toks[k]] {
			return toks[:k+1], "stop"
		}
	}
	if maxTokens > 0 && n == maxTokens {
		return toks[:n], "length"
	}
	return toks[:n], "stop"
}

// sampleSeed hashes what the sample depends on. At temperature 0 the
// sample index does not matter (greedy).
func sampleSeed(sr SampleRequest, i int) [2]uint64 {
	h := sha256.New()
	for _, t := range sr.Prompt {
		_ = binary.Write(h, binary.LittleEndian, int64(t))
	}
	h.Write([]byte("|" + sr.BaseModel + "|" + sr.ModelPath + "|"))
	if sr.Seed != nil {
		_ = binary.Write(h, binary.LittleEndian, *sr.Seed)
	}
	if sr.Temperature != 0 {
		_ = binary.Write(h, binary.LittleEndian, int64(i))
	}
	sum := h.Sum(nil)
	return [2]uint64{binary.LittleEndian.Uint64(sum[0:8]), binary.LittleEndian.Uint64(sum[8:16])}
}

// fakeLogprob is a deterministic logprob in [-3, -0.01).
func fakeLogprob(base uint64, pos, tok int) float64 {
	x := splitmix(base ^ splitmix(uint64(pos)<<32|uint64(uint32(tok))))
	return -(0.01 + 2.99*float64(x>>11)/float64(1<<53))
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// promptLogprobs is null for the first prompt token, then deterministic.
func promptLogprobs(sr SampleRequest) []*float64 {
	out := make([]*float64, len(sr.Prompt))
	base := sampleSeed(SampleRequest{Prompt: sr.Prompt, BaseModel: sr.BaseModel, ModelPath: sr.ModelPath}, 0)
	for k := 1; k < len(sr.Prompt); k++ {
		lp := fakeLogprob(base[1], k, sr.Prompt[k])
		out[k] = &lp
	}
	return out
}
