package faketinker

import (
	"context"
	"crypto/sha256"
	"fmt"
	"net/http"
	"strings"
)

// Checkpoint kinds.
const (
	KindWeights = "weights" // full training state, tinker://<model>/weights/<name>
	KindSampler = "sampler" // sampler weights, tinker://<model>/sampler_weights/<name>
)

// Checkpoint is saved weights.
type Checkpoint struct {
	Path      string
	Kind      string
	Name      string
	ModelID   string
	BaseModel string
	LoRARank  int
	Step      int // optimizer steps of the model when saved
}

// model is a training model.
type model struct {
	id, session, baseModel string
	lora                   wireLoRA
	createHash             [32]byte
	createJob              *job
	step                   int
	grads                  int // forward_backward calls since the last optim_step
	loadedFrom             string
	adam                   []AdamParams
	seq                    *sequencer
}

func (s *Server) createModel(_ context.Context, c *call) reply {
	var req wireCreateModel
	if rep, good := decode(c, &req); !good {
		return rep
	}
	seq, rep, good := seqOf(req.ModelSeqID, "create_model")
	if !good {
		return rep
	}
	if rep, good := checkModelRequest(req); !good {
		return rep
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if rep, good := s.requireSession(req.SessionID); !good {
		return rep
	}
	id := fmt.Sprintf("%s:train:%d", req.SessionID, seq)
	hash := sha256.Sum256(c.body)
	if m := s.st.models[id]; m != nil {
		if m.createHash != hash {
			return fail(http.StatusBadRequest, "model_seq_id %d already used", seq)
		}
		return ok(map[string]any{"request_id": s.st.newFuture(c.endpoint, m.createJob).id, "model_id": id})
	}
	j := newJob()
	j.complete(map[string]any{"type": "create_model", "model_id": id})
	s.st.models[id] = &model{id: id, session: req.SessionID, baseModel: req.BaseModel, lora: *req.LoRAConfig,
		createHash: hash, createJob: j, seq: newSequencer(1)}
	return ok(map[string]any{"request_id": s.st.newFuture(c.endpoint, j).id, "model_id": id})
}

func checkModelRequest(req wireCreateModel) (reply, bool) {
	l := req.LoRAConfig
	switch {
	case req.BaseModel == "":
		return fail(http.StatusBadRequest, "create_model: missing base_model"), false
	case l == nil:
		return fail(http.StatusBadRequest, "create_model: missing lora_config"), false
	case l.Rank < 1:
		return fail(http.StatusBadRequest, "create_model: lora rank %d", l.Rank), false
	case !l.TrainUnembed && !l.TrainMLP && !l.TrainAttn:
		return fail(http.StatusBadRequest, "create_model: lora_config trains nothing"), false
	}
	return reply{}, true
}

// modelOp decodes a sequenced model request, finds the model and admits
// the request; run executes in seq order with s.mu held.
func (s *Server) modelOp(c *call, run func(m *model, req wireModelOp, j *job)) reply {
	var req wireModelOp
	if rep, good := decode(c, &req); !good {
		return rep
	}
	seq, rep, good := seqOf(req.SeqID, c.endpoint)
	if !good {
		return rep
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.st.models[req.ModelID]
	if m == nil {
		return fail(http.StatusNotFound, "unknown model_id %q", req.ModelID)
	}
	return s.st.admit(m.seq, seq, c, func(j *job) { run(m, req, j) })
}

func (s *Server) optimStep(_ context.Context, c *call) reply {
	return s.modelOp(c, func(m *model, req wireModelOp, j *job) {
		p := req.AdamParams
		switch {
		case p == nil:
			j.fail("user", "optim_step: missing adam_params")
		case p.LearningRate < 0 || p.Beta1 < 0 || p.Beta1 >= 1 || p.Beta2 < 0 || p.Beta2 >= 1 || p.Eps < 0:
			j.fail("user", "optim_step: bad adam_params %+v", *p)
		default:
			m.step++
			m.grads = 0
			m.adam = append(m.adam, *p)
			j.complete(map[string]any{"metrics": map[string]float64{"step:max": float64(m.step)}})
		}
	})
}

func (s *Server) saveWeights(_ context.Context, c *call) reply {
	return s.modelOp(c, func(m *model, req wireModelOp, j *job) {
		s.st.save(m, req, KindWeights, j)
	})
}

func (s *Server) saveWeightsForSampler(_ context.Context, c *call) reply {
	return s.modelOp(c, func(m *model, req wireModelOp, j *job) {
		if req.Path == "" && req.SamplerSeqID != nil {
			s.st.ephemeralSampler(m, *req.SamplerSeqID, j)
			return
		}
		s.st.save(m, req, KindSampler, j)
	})
}

// save stores a named checkpoint of m.
func (st *state) save(m *model, req wireModelOp, kind string, j *job) {
	name := req.Path
	if name == "" || strings.ContainsAny(name, "/:") {
		j.fail("user", "checkpoint name %q must be non-empty without / or :", name)
		return
	}
	dir := "weights"
	if kind == KindSampler {
		dir = "sampler_weights"
	}
	path := fmt.Sprintf("tinker://%s/%s/%s", m.id, dir, name)
	if st.checkpoints[path] != nil && !(kind == KindSampler || req.Overwrite) {
		j.fail("user", "checkpoint %s exists", path)
		return
	}
	if st.checkpoints[path] == nil {
		st.ckptOrder = append(st.ckptOrder, path)
	}
	st.checkpoints[path] = &Checkpoint{Path: path, Kind: kind, Name: name, ModelID: m.id,
		BaseModel: m.baseModel, LoRARank: m.lora.Rank, Step: m.step}
	j.complete(map[string]any{"path": path})
}

// ephemeralSampler saves unnamed sampler weights and opens a sampling
// session on them.
func (st *state) ephemeralSampler(m *model, seq int, j *job) {
	name := fmt.Sprintf("ephemeral-%d", seq)
	path := fmt.Sprintf("tinker://%s/sampler_weights/%s", m.id, name)
	st.checkpoints[path] = &Checkpoint{Path: path, Kind: KindSampler, Name: name, ModelID: m.id,
		BaseModel: m.baseModel, LoRARank: m.lora.Rank, Step: m.step}
	st.ckptOrder = append(st.ckptOrder, path)
	id := fmt.Sprintf("%s:sample:%d", m.session, seq)
	st.samplers[id] = &sampler{id: id, session: m.session, baseModel: m.baseModel, modelPath: path, seq: newSequencer(0)}
	j.complete(map[string]any{"sampling_session_id": id})
}

func (s *Server) loadWeights(_ context.Context, c *call) reply {
	return s.modelOp(c, func(m *model, req wireModelOp, j *job) {
		ck := s.st.checkpoints[req.Path]
		switch {
		case ck == nil:
			j.fail("user", "unknown checkpoint %q", req.Path)
		case ck.Kind != KindWeights:
			j.fail("user", "%q is sampler weights, not a training state", req.Path)
		case ck.BaseModel != m.baseModel:
			j.fail("user", "%q was trained from %s, not %s", req.Path, ck.BaseModel, m.baseModel)
		default:
			m.step, m.loadedFrom = ck.Step, ck.Path
			j.complete(map[string]any{"path": ck.Path, "model_id": m.id})
		}
	})
}

func (s *Server) getInfo(_ context.Context, c *call) reply {
	var req struct {
		ModelID string `json:"model_id"`
	}
	if rep, good := decode(c, &req); !good {
		return rep
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.st.models[req.ModelID]
	if m == nil {
		return fail(http.StatusNotFound, "unknown model_id %q", req.ModelID)
	}
	tok := s.opts.TokenizerID
	if tok == "" {
		tok = m.baseModel
	}
	return ok(map[string]any{"type": "get_info", "model_id": m.id, "is_lora": true, "lora_rank": m.lora.Rank,
		"model_name": m.baseModel,
		"model_data": map[string]any{"arch": "fake", "model_name": m.baseModel, "tokenizer_id": tok}})
}

func (s *Server) weightsInfo(_ context.Context, c *call) reply {
	var req struct {
		TinkerPath string `json:"tinker_path"`
	}
	if rep, good := decode(c, &req); !good {
		return rep
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ck := s.st.checkpoints[req.TinkerPath]
	if ck == nil {
		return fail(http.StatusNotFound, "unknown checkpoint %q", req.TinkerPath)
	}
	m := s.st.models[ck.ModelID]
	return ok(map[string]any{"base_model": ck.BaseModel, "is_lora": true, "lora_rank": ck.LoRARank,
		"train_unembed": m.lora.TrainUnembed, "train_mlp": m.lora.TrainMLP, "train_attn": m.lora.TrainAttn})
}
