package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/metaclaw/metaclaw/store"
)

// The reference's HTTP API for external orchestrators (aiming-lab/MetaClaw
// metaclaw/api_server.py: /v1/memory/buffer_turn, /v1/memory/flush_session,
// /v1/memory/ingest without turns, /v1/memory/stats, /v1/memory/{id} and
// /v1/admin/train_step), which its benchmark harness calls
// (benchmark/scripts/buffer_memory_run.py, memory_run.py). Answers follow
// the reference's shapes; errors come in the proxy's error shape.

// MemoryReader is what GET /v1/memory/stats and /v1/memory/{id} need of the
// memory service besides MemoryService.
type MemoryReader interface {
	Memory(ctx context.Context, id int64) (store.Memory, error)
	// ScopeMemories returns every memory of a scope, past ones too.
	ScopeMemories(ctx context.Context, scope string) ([]store.Memory, error)
}

// TrainStepper runs one training step now, for POST /v1/admin/train_step.
// It returns ErrNoTrainer when this MetaClaw does not train.
type TrainStepper interface {
	TrainStep(ctx context.Context) (TrainStepResult, error)
}

// ErrNoTrainer says the running MetaClaw has no trainer (skills_only, or
// RL not set up).
var ErrNoTrainer = errors.New("trainer not available")

// TrainStepResult is the answer of POST /v1/admin/train_step, in the shape
// of the reference's trainer.train_step_external: status ok, skipped or
// error, with the step's figures.
type TrainStepResult struct {
	Status      string   `json:"status"`
	Message     string   `json:"message,omitempty"`
	Step        int      `json:"step,omitempty"`
	Samples     int      `json:"samples"`
	MeanReward  *float64 `json:"mean_reward,omitempty"`
	Loss        *float64 `json:"loss,omitempty"`
	SamplerPath string   `json:"sampler_path,omitempty"`
}

// refBuffer holds the turns given to /v1/memory/buffer_turn until they are
// flushed, by session, as the reference's memory manager does.
type refBuffer struct {
	mu     sync.Mutex // guards turns and scopes
	turns  map[string][]MemoryTurn
	scopes map[string]string
}

func (b *refBuffer) add(session, scope string, t MemoryTurn) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.turns == nil {
		b.turns, b.scopes = map[string][]MemoryTurn{}, map[string]string{}
	}
	b.turns[session] = append(b.turns[session], t)
	if scope != "" {
		b.scopes[session] = scope
	}
	return len(b.turns[session])
}

// take removes and returns a session's turns ("" takes every session's).
func (b *refBuffer) take(session string) map[string][]MemoryTurn {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := map[string][]MemoryTurn{}
	for s, ts := range b.turns {
		if session == "" || s == session {
			out[s] = ts
			delete(b.turns, s)
		}
	}
	return out
}

func (b *refBuffer) scope(session string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.scopes[session]
	delete(b.scopes, session)
	return s
}

func (b *refBuffer) has(session string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.turns[session]) > 0
}

// refRoutes registers the reference's memory routes (the group carries the
// memory guard) and its admin route.
func (s *Server) refRoutes(v1 fiber.Router, mem fiber.Router) {
	mem.Get("/stats", s.handleMemoryStats)
	mem.Post("/buffer_turn", s.handleBufferTurn)
	mem.Post("/flush_session", s.handleFlushSession)
	mem.Get("/:id", s.handleMemoryGet)
	v1.Post("/admin/train_step", s.adminGuard, s.handleTrainStep)
}

// adminGuard requires a JSON body, as memoryGuard does; web pages are kept
// away by the guards of every route (guardHost, guardBrowser).
func (s *Server) adminGuard(c *fiber.Ctx) error {
	if len(c.Body()) > 0 && !strings.HasPrefix(c.Get(fiber.HeaderContentType), fiber.MIMEApplicationJSON) {
		return sendError(c, http.StatusUnsupportedMediaType, "invalid_content_type", "send the body as application/json")
	}
	return c.Next()
}

// refScope is the scope of a reference request: its scope_id or scope,
// else the identity headers and memory.scope.
func (s *Server) refScope(c *fiber.Ctx, explicit string) string { return s.memoryScope(c, explicit) }

type bufferTurnRequest struct {
	SessionID string `json:"session_id"`
	ScopeID   string `json:"scope_id"`
	Turn      struct {
		PromptText   string `json:"prompt_text"`
		ResponseText string `json:"response_text"`
	} `json:"turn"`
}

func (s *Server) handleBufferTurn(c *fiber.Ctx) error {
	var req bufferTurnRequest
	if err := json.Unmarshal(c.Body(), &req); err != nil {
		return sendError(c, http.StatusBadRequest, "invalid_json", "body is not valid JSON: "+err.Error())
	}
	session := strings.TrimSpace(req.SessionID)
	if session == "" || strings.TrimSpace(req.Turn.PromptText) == "" {
		return sendError(c, http.StatusBadRequest, "invalid_request", "give a session_id and turn.prompt_text")
	}
	n := s.refMem.add(session, strings.TrimSpace(req.ScopeID), MemoryTurn{User: req.Turn.PromptText, Assistant: req.Turn.ResponseText})
	if n < s.conf().Memory.FlushEvery {
		return c.JSON(fiber.Map{"flushed": false, "added": nil})
	}
	added, err := s.flushBuffered(c, session, s.refScope(c, s.refMem.scope(session)))
	if err != nil {
		return s.memoryError(c, err)
	}
	return c.JSON(fiber.Map{"flushed": true, "added": added})
}

// flushBuffered extracts memories from a session's buffered turns.
func (s *Server) flushBuffered(c *fiber.Ctx, session, scope string) (int, error) {
	turns := s.refMem.take(session)[session]
	if len(turns) == 0 {
		return 0, nil
	}
	ctx, cancel := context.WithTimeout(s.baseCtx, memoryTimeout)
	defer cancel()
	res, err := s.opts.Memory.IngestMemories(ctx, MemoryIngest{Scope: scope, SessionID: session, Turns: turns})
	return len(res.Added), err
}

type flushSessionRequest struct {
	SessionID string `json:"session_id"`
	ScopeID   string `json:"scope_id"`
	Final     *bool  `json:"final"`
}

func (s *Server) handleFlushSession(c *fiber.Ctx) error {
	var req flushSessionRequest
	if err := json.Unmarshal(c.Body(), &req); err != nil {
		return sendError(c, http.StatusBadRequest, "invalid_json", "body is not valid JSON: "+err.Error())
	}
	session := strings.TrimSpace(req.SessionID)
	if session == "" {
		return sendError(c, http.StatusBadRequest, "invalid_request", "give a session_id")
	}
	scope := strings.TrimSpace(req.ScopeID)
	if scope == "" {
		scope = s.refMem.scope(session)
	}
	added, err := s.flushBuffered(c, session, s.refScope(c, scope))
	if err != nil {
		return s.memoryError(c, err)
	}
	return c.JSON(fiber.Map{"added": added})
}

// handleRefIngest is POST /v1/memory/ingest with the reference's body
// ({"session_id", "scope"}, no turns): it extracts from the buffered turns
// of that session, or of every session when session_id is empty.
func (s *Server) handleRefIngest(c *fiber.Ctx, session, scope string) error {
	type result struct {
		SessionID string `json:"session_id"`
		Added     int    `json:"added"`
		Turns     int    `json:"turns"`
	}
	results := []result{}
	total, turns := 0, 0
	for _, sid := range sortedSessions(s.refMem.take(session)) {
		ts := sid.turns
		sc := scope
		if sc == "" {
			sc = s.refMem.scope(sid.id)
		}
		ctx, cancel := context.WithTimeout(s.baseCtx, memoryTimeout)
		res, err := s.opts.Memory.IngestMemories(ctx, MemoryIngest{Scope: s.refScope(c, sc), SessionID: sid.id, Turns: ts})
		cancel()
		if err != nil {
			return s.memoryError(c, err)
		}
		total, turns = total+len(res.Added), turns+len(ts)
		results = append(results, result{SessionID: sid.id, Added: len(res.Added), Turns: len(ts)})
	}
	return c.JSON(fiber.Map{"added": total, "buffered_turns": turns, "sessions": results})
}

type bufferedSession struct {
	id    string
	turns []MemoryTurn
}

func sortedSessions(m map[string][]MemoryTurn) []bufferedSession {
	out := make([]bufferedSession, 0, len(m))
	for id, ts := range m {
		out = append(out, bufferedSession{id, ts})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}

func (s *Server) memoryReader(c *fiber.Ctx) (MemoryReader, error) {
	r, ok := s.opts.Memory.(MemoryReader)
	if !ok {
		return nil, sendError(c, http.StatusNotFound, "memory_off", "this MetaClaw's memory cannot be read here")
	}
	return r, nil
}

// handleMemoryStats answers the reference's summarize_memory_store shape
// (metaclaw/memory/metrics.py over store.get_stats).
func (s *Server) handleMemoryStats(c *fiber.Ctx) error {
	r, err := s.memoryReader(c)
	if r == nil {
		return err
	}
	scope := s.refScope(c, c.Query("scope"))
	ctx, cancel := context.WithTimeout(s.baseCtx, memoryTimeout)
	defer cancel()
	ms, err := r.ScopeMemories(ctx, scope)
	if err != nil {
		return s.memoryError(c, err)
	}
	return c.JSON(memoryStats(scope, ms))
}

func memoryStats(scope string, ms []store.Memory) fiber.Map {
	byType, active, pinned := map[string]int{}, 0, 0
	for _, m := range ms {
		if m.Current() {
			active++
			byType[m.Type]++
			if m.Pinned {
				pinned++
			}
		}
	}
	dominant, ratios := "", map[string]float64{}
	for _, t := range store.MemoryTypes {
		if byType[t] > byType[dominant] || (dominant == "" && byType[t] > 0) {
			dominant = t
		}
		if byType[t] > 0 {
			ratios[t] = round4(float64(byType[t]) / float64(active))
		}
	}
	return fiber.Map{"scope_id": scope, "total": len(ms), "active": active, "active_by_type": byType, "pinned": pinned,
		"memory_density": round4(float64(active) / math.Max(float64(len(ms)), 1)), "dominant_type": dominant,
		"type_count": len(byType), "type_ratios": ratios, "superseded": len(ms) - active}
}

func round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }

// handleMemoryGet answers the reference's memory_get shape.
func (s *Server) handleMemoryGet(c *fiber.Ctx) error {
	r, err := s.memoryReader(c)
	if r == nil {
		return err
	}
	id, err := strconv.ParseInt(c.Params("id"), 10, 64)
	if err != nil || id <= 0 {
		return sendError(c, http.StatusBadRequest, "invalid_request", "the memory id must be a positive number")
	}
	ctx, cancel := context.WithTimeout(s.baseCtx, memoryTimeout)
	defer cancel()
	m, err := r.Memory(ctx, id)
	if err != nil {
		return s.memoryError(c, err)
	}
	topics := []string{}
	if m.Topic != "" {
		topics = append(topics, m.Topic)
	}
	return c.JSON(fiber.Map{"memory_id": strconv.FormatInt(m.ID, 10), "scope_id": m.Scope, "type": m.Type, "content": m.Content,
		"summary": "", "importance": round3(m.Importance), "entities": []string{}, "topics": topics, "tags": []string{},
		"pinned": m.Pinned, "created_at": m.CreatedAt.UTC().Format(time.RFC3339), "updated_at": m.UpdatedAt.UTC().Format(time.RFC3339),
		"expires_at": ""})
}

func (s *Server) handleTrainStep(c *fiber.Ctx) error {
	if s.opts.Trainer == nil {
		return sendError(c, http.StatusServiceUnavailable, "trainer_unavailable", "trainer not available: this MetaClaw does not train (mode rl or madmax with rl.api_key)")
	}
	ctx, cancel := context.WithTimeout(s.baseCtx, 10*time.Minute) // the reference waits 600 s
	defer cancel()
	res, err := s.opts.Trainer.TrainStep(ctx)
	switch {
	case errors.Is(err, ErrNoTrainer):
		return sendError(c, http.StatusServiceUnavailable, "trainer_unavailable", err.Error())
	case errors.Is(err, context.DeadlineExceeded):
		return sendError(c, http.StatusGatewayTimeout, "timeout", "train step timed out (600s); the running MetaClaw keeps the request")
	case err != nil:
		return sendError(c, http.StatusInternalServerError, "train_step_failed", "train step failed: "+err.Error())
	}
	return c.JSON(res)
}
