package fakeweaver

import (
	"fmt"
	"net/http"
	"strings"
)

type model struct {
	id, session, base string
	rank              int
	seq               int // last seq_id
	step              int // optimizer steps
	names             map[string]bool
}

// RecordedDatum is one datum a forward-backward pass received.
type RecordedDatum struct {
	ModelID      string
	SeqID        int
	LossFn       string
	LossFnConfig map[string]float64
	ModelInput   []int
	Inputs       map[string][]float64 // by name; ints as floats
}

// Checkpoint is a saved state or sampler export.
type Checkpoint struct {
	Path, ModelID, Name string
	Type                string // weight, weight_and_optimizer, sampling or sampler
	Step                int
}

func (s *Server) createModel(r *http.Request, body map[string]any) (int, any) {
	sess, ok := s.sessions[r.PathValue("id")]
	if !ok {
		return apiError(http.StatusNotFound, "not_found", "no such session")
	}
	seq, ok := intOf(body["model_seq_id"])
	if !ok || seq < 1 || sess.modelSeqs[seq] {
		return apiError(http.StatusBadRequest, "invalid_request", "model_seq_id must be a new positive integer")
	}
	base, _ := body["base_model"].(string)
	lora, _ := body["lora_config"].(map[string]any)
	rank, ok := intOf(lora["rank"])
	if base == "" || !ok || rank < 1 {
		return apiError(http.StatusBadRequest, "invalid_request", "base_model and lora_config.rank are required")
	}
	sess.modelSeqs[seq] = true
	m := &model{id: s.newID("model"), session: sess.id, base: base, rank: rank, names: map[string]bool{}}
	s.models[m.id] = m
	return http.StatusCreated, map[string]any{"id": m.id, "base_model": base, "tokenizer_path": base}
}

func (s *Server) getModel(r *http.Request, _ map[string]any) (int, any) {
	m, ok := s.models[r.PathValue("id")]
	if !ok {
		return apiError(http.StatusNotFound, "not_found", "no such model")
	}
	return http.StatusOK, map[string]any{"id": m.id, "base_model": m.base, "tokenizer_path": m.base, "lora_rank": m.rank}
}

// takeSeq checks that seq is the model's next seq_id.
func (m *model) takeSeq(v any) (int, bool) {
	seq, ok := intOf(v)
	if !ok || seq != m.seq+1 {
		return 0, false
	}
	m.seq = seq
	return seq, true
}

// payloadOf reads {"payload": {...}} for model id, checking model_id and
// the seq_id.
func (s *Server) payloadOf(r *http.Request, body map[string]any) (*model, map[string]any, int, int, any) {
	m, ok := s.models[r.PathValue("id")]
	if !ok {
		st, b := apiError(http.StatusNotFound, "not_found", "no such model")
		return nil, nil, 0, st, b
	}
	p, _ := body["payload"].(map[string]any)
	if p == nil || p["model_id"] != m.id {
		st, b := apiError(http.StatusBadRequest, "invalid_request", "payload.model_id must name the model")
		return nil, nil, 0, st, b
	}
	seq, ok := m.takeSeq(p["seq_id"])
	if !ok {
		st, b := apiError(http.StatusConflict, "invalid_seq_id", fmt.Sprintf("seq_id must be %d", m.seq+1))
		return nil, nil, 0, st, b
	}
	return m, p, seq, 0, nil
}

func (s *Server) forwardBackward(r *http.Request, body map[string]any) (int, any) {
	m, p, seq, st, errBody := s.payloadOf(r, body)
	if m == nil {
		return st, errBody
	}
	in, _ := p["forward_backward_input"].(map[string]any)
	lossFn, _ := in["loss_fn"].(string)
	data, _ := in["data"].([]any)
	need, known := lossInputs[lossFn]
	if !known || len(data) == 0 {
		return apiError(http.StatusBadRequest, "invalid_request", fmt.Sprintf("unknown loss_fn %q or no data", lossFn))
	}
	cfg := map[string]float64{}
	if c, ok := in["loss_fn_config"].(map[string]any); ok {
		for k, v := range c {
			f, err := floatOf(v)
			if err != nil {
				return apiError(http.StatusBadRequest, "invalid_request", "loss_fn_config values must be numbers")
			}
			cfg[k] = f
		}
	}
	var outputs []any
	loss := 0.0
	for i, raw := range data {
		d, err := parseDatum(raw, need)
		if err != nil {
			return apiError(http.StatusBadRequest, "invalid_datum", fmt.Sprintf("datum %d: %v", i, err))
		}
		rec := RecordedDatum{ModelID: m.id, SeqID: seq, LossFn: lossFn, ModelInput: d.input, Inputs: d.inputs}
		if len(cfg) > 0 {
			rec.LossFnConfig = cfg
		}
		s.datums = append(s.datums, rec)
		lps := make([]float64, len(d.inputs["target_tokens"]))
		for j, tok := range d.inputs["target_tokens"] {
			lps[j] = targetLogprob(m.step, int(tok))
			loss -= lps[j]
		}
		outputs = append(outputs, map[string]any{"logprobs": map[string]any{"data": lps, "dtype": "float32", "shape": []int{len(lps)}}})
	}
	return s.startOp("forward-backward-passes", map[string]any{"result": map[string]any{
		"loss_fn_outputs": outputs, "metrics": map[string]any{"loss:sum": loss}}})
}

// targetLogprob is the fake model's logprob of a target token, which
// moves with every optimizer step.
func targetLogprob(step, tok int) float64 {
	return -1 - float64((tok*7+step)%13)/10
}

func (s *Server) optimStep(r *http.Request, body map[string]any) (int, any) {
	m, p, _, st, errBody := s.payloadOf(r, body)
	if m == nil {
		return st, errBody
	}
	adam, _ := p["adam_params"].(map[string]any)
	lr, err := floatOf(adam["learning_rate"])
	if err != nil || lr <= 0 {
		return apiError(http.StatusBadRequest, "invalid_request", "adam_params.learning_rate must be positive")
	}
	m.step++
	return s.startOp("optimizer-steps", map[string]any{"result": map[string]any{"metrics": map[string]any{"step": m.step}}})
}

func (s *Server) exportSampler(r *http.Request, body map[string]any) (int, any) {
	m, ok := s.models[r.PathValue("id")]
	if !ok {
		return apiError(http.StatusNotFound, "not_found", "no such model")
	}
	if _, ok := m.takeSeq(body["seq_id"]); !ok {
		return apiError(http.StatusConflict, "invalid_seq_id", fmt.Sprintf("seq_id must be %d", m.seq+1))
	}
	name, _ := body["path"].(string)
	if name == "" || m.names["sampler/"+name] {
		return apiError(http.StatusConflict, "conflict", "sampler name missing or already used")
	}
	m.names["sampler/"+name] = true
	path := "weaver://" + m.id + "/sampler/" + name
	s.checkpoints[path] = Checkpoint{Path: path, ModelID: m.id, Name: name, Type: "sampler", Step: m.step}
	return s.startOp("export-sampler", map[string]any{"model_path": path})
}

func (s *Server) saveCheckpoint(r *http.Request, body map[string]any) (int, any) {
	m, ok := s.models[r.PathValue("id")]
	if !ok {
		return apiError(http.StatusNotFound, "not_found", "no such model")
	}
	typ, _ := body["type"].(string)
	name, _ := body["name"].(string)
	if typ != "weight" && typ != "weight_and_optimizer" && typ != "sampling" {
		return apiError(http.StatusBadRequest, "invalid_request", "unknown checkpoint type")
	}
	if name == "" || m.names[name] {
		return apiError(http.StatusConflict, "conflict", "checkpoint name missing or already used")
	}
	m.names[name] = true
	path := "weaver://" + m.id + "/checkpoints/" + name
	s.checkpoints[path] = Checkpoint{Path: path, ModelID: m.id, Name: name, Type: typ, Step: m.step}
	return s.startOp("checkpoints", map[string]any{"id": s.newID("ckpt"), "path": path, "name": name,
		"checkpoint_type": typ, "status": "completed"})
}

func (s *Server) load(r *http.Request, body map[string]any) (int, any) {
	m, ok := s.models[r.PathValue("id")]
	if !ok {
		return apiError(http.StatusNotFound, "not_found", "no such model")
	}
	path, _ := body["path"].(string)
	ck, ok := s.checkpoints[path]
	if _, isBool := body["include_optimizer"].(bool); !ok || ck.Type == "sampler" || !isBool {
		return apiError(http.StatusBadRequest, "invalid_request", "path must name a saved checkpoint; include_optimizer a boolean")
	}
	m.step = ck.Step
	return s.startOp("load", map[string]any{"path": path})
}

// Datums returns every datum forward-backward passes received.
func (s *Server) Datums() []RecordedDatum {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]RecordedDatum(nil), s.datums...)
}

// Checkpoints returns the saved checkpoints and sampler exports by path.
func (s *Server) Checkpoints() map[string]Checkpoint {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]Checkpoint, len(s.checkpoints))
	for k, v := range s.checkpoints {
		out[k] = v
	}
	return out
}

// Steps is a model's optimizer step count.
func (s *Server) Steps(modelID string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m, ok := s.models[modelID]; ok {
		return m.step
	}
	return 0
}

// lossInputs are the loss_fn_inputs each loss needs, with their dtypes.
var lossInputs = map[string]map[string]string{
	"cross_entropy":       {"target_tokens": "int64", "weights": "float32"},
	"importance_sampling": {"target_tokens": "int64", "logprobs": "float32", "advantages": "float32"},
	"ppo":                 {"target_tokens": "int64", "logprobs": "float32", "advantages": "float32"},
	"cispo":               {"target_tokens": "int64", "logprobs": "float32", "advantages": "float32"},
}

type datum struct {
	input  []int
	inputs map[string][]float64
}

// parseDatum checks a datum: encoded_text chunks, and exactly the loss's
// inputs, each of the input's length.
func parseDatum(raw any, need map[string]string) (datum, error) {
	d, _ := raw.(map[string]any)
	mi, _ := d["model_input"].(map[string]any)
	chunks, _ := mi["chunks"].([]any)
	var out datum
	for _, c := range chunks {
		cm, _ := c.(map[string]any)
		if cm["type"] != "encoded_text" {
			return out, fmt.Errorf("chunk type %v, want encoded_text", cm["type"])
		}
		toks, _ := cm["tokens"].([]any)
		for _, t := range toks {
			n, ok := intOf(t)
			if !ok || n < 0 {
				return out, fmt.Errorf("token %v is not a token id", t)
			}
			out.input = append(out.input, n)
		}
	}
	if len(out.input) == 0 {
		return out, fmt.Errorf("empty model_input")
	}
	ins, _ := d["loss_fn_inputs"].(map[string]any)
	if len(ins) != len(need) {
		return out, fmt.Errorf("loss_fn_inputs %v, want %v", keys(ins), need)
	}
	out.inputs = map[string][]float64{}
	for name, dtype := range need {
		v, err := tensor(ins[name], dtype, len(out.input))
		if err != nil {
			return out, fmt.Errorf("%s: %w", name, err)
		}
		out.inputs[name] = v
	}
	return out, nil
}

func tensor(raw any, dtype string, n int) ([]float64, error) {
	t, _ := raw.(map[string]any)
	if t == nil || t["dtype"] != dtype {
		return nil, fmt.Errorf("want a %s tensor", dtype)
	}
	data, _ := t["data"].([]any)
	if len(data) != n {
		return nil, fmt.Errorf("%d values for %d input tokens", len(data), n)
	}
	out := make([]float64, n)
	for i, v := range data {
		f, err := floatOf(v)
		if err != nil {
			return nil, err
		}
		out[i] = f
	}
	if shape, ok := t["shape"].([]any); ok {
		if k, ok := intOf(firstOr(shape)); len(shape) != 1 || !ok || k != n {
			return nil, fmt.Errorf("shape %v, want [%d]", shape, n)
		}
	}
	return out, nil
}

func firstOr(v []any) any {
	if len(v) == 0 {
		return nil
	}
	return v[0]
}

func floatOf(v any) (float64, error) {
	n, ok := v.(interface{ Float64() (float64, error) })
	if !ok {
		return 0, fmt.Errorf("%v is not a number", v)
	}
	return n.Float64()
}

func keys(m map[string]any) string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return strings.Join(out, ",")
}
