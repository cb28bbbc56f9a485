package memapi

import (
	"encoding/json"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/metaclaw/metaclaw/app/learner/memory"
	"github.com/metaclaw/metaclaw/proxy/learning"
	"github.com/metaclaw/metaclaw/store"
)

// The reference's memory API for external orchestrators (aiming-lab/MetaClaw
// metaclaw/api_server.py: /v1/memory/buffer_turn, /v1/memory/flush_session,
// /v1/memory/ingest without turns, /v1/memory/stats and /v1/memory/{id}),
// which its benchmark harness calls (benchmark/scripts/buffer_memory_run.py,
// memory_run.py). Answers follow the reference's shapes; errors come in the
// proxy's error shape.

// buffer holds the turns given to /v1/memory/buffer_turn until they are
// flushed, by session, as the reference's memory manager does.
type buffer struct {
	mu     sync.Mutex // guards turns and scopes
	turns  map[string][]memory.Exchange
	scopes map[string]string
}

func (b *buffer) add(session, scope string, t memory.Exchange) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.turns == nil {
		b.turns, b.scopes = map[string][]memory.Exchange{}, map[string]string{}
	}
	b.turns[session] = append(b.turns[session], t)
	if scope != "" {
		b.scopes[session] = scope
	}
	return len(b.turns[session])
}

// take removes and returns a session's turns ("" takes every session's).
func (b *buffer) take(session string) map[string][]memory.Exchange {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := map[string][]memory.Exchange{}
	for s, ts := range b.turns {
		if session == "" || s == session {
			out[s] = ts
			delete(b.turns, s)
		}
	}
	return out
}

func (b *buffer) scope(session string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.scopes[session]
	delete(b.scopes, session)
	return s
}

func (b *buffer) has(session string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.turns[session]) > 0
}

type bufferTurnRequest struct {
	SessionID string `json:"session_id"`
	ScopeID   string `json:"scope_id"`
	Turn      struct {
		PromptText   string `json:"prompt_text"`
		ResponseText string `json:"response_text"`
	} `json:"turn"`
}

func (h handlers) bufferTurn(c *fiber.Ctx) error {
	var req bufferTurnRequest
	if err := json.Unmarshal(c.Body(), &req); err != nil {
		return learning.Errorf(http.StatusBadRequest, "invalid_json", "body is not valid JSON: %v", err)
	}
	session := strings.TrimSpace(req.SessionID)
	if session == "" || strings.TrimSpace(req.Turn.PromptText) == "" {
		return learning.Errorf(http.StatusBadRequest, "invalid_request", "give a session_id and turn.prompt_text")
	}
	n := h.buf.add(session, strings.TrimSpace(req.ScopeID), memory.Exchange{User: req.Turn.PromptText, Assistant: req.Turn.ResponseText})
	if n < h.opts.FlushEvery {
		return c.JSON(fiber.Map{"flushed": false, "added": nil})
	}
	added, err := h.flushBuffered(c, session, h.scope(c, h.buf.scope(session)))
	if err != nil {
		return h.fail(c, err)
	}
	return c.JSON(fiber.Map{"flushed": true, "added": added})
}

// flushBuffered extracts memories from a session's buffered turns.
func (h handlers) flushBuffered(c *fiber.Ctx, session, scope string) (int, error) {
	turns := h.buf.take(session)[session]
	if len(turns) == 0 {
		return 0, nil
	}
	ctx, cancel := h.context(c)
	defer cancel()
	rep, err := h.extract(ctx, scope, session, turns)
	return len(rep.Added), err
}

type flushSessionRequest struct {
	SessionID string `json:"session_id"`
	ScopeID   string `json:"scope_id"`
	Final     *bool  `json:"final"`
}

func (h handlers) flushSession(c *fiber.Ctx) error {
	var req flushSessionRequest
	if err := json.Unmarshal(c.Body(), &req); err != nil {
		return learning.Errorf(http.StatusBadRequest, "invalid_json", "body is not valid JSON: %v", err)
	}
	session := strings.TrimSpace(req.SessionID)
	if session == "" {
		return learning.Errorf(http.StatusBadRequest, "invalid_request", "give a session_id")
	}
	scope := strings.TrimSpace(req.ScopeID)
	if scope == "" {
		scope = h.buf.scope(session)
	}
	added, err := h.flushBuffered(c, session, h.scope(c, scope))
	if err != nil {
		return h.fail(c, err)
	}
	return c.JSON(fiber.Map{"added": added})
}

// refIngest is POST /v1/memory/ingest with the reference's body
// ({"session_id", "scope"}, no turns): it extracts from the buffered turns
// of that session, or of every session when session_id is empty.
func (h handlers) refIngest(c *fiber.Ctx, session, scope string) error {
	type result struct {
		SessionID string `json:"session_id"`
		Added     int    `json:"added"`
		Turns     int    `json:"turns"`
	}
	results := []result{}
	total, turns := 0, 0
	for _, sid := range sortedSessions(h.buf.take(session)) {
		sc := scope
		if sc == "" {
			sc = h.buf.scope(sid.id)
		}
		ctx, cancel := h.context(c)
		rep, err := h.extract(ctx, h.scope(c, sc), sid.id, sid.turns)
		cancel()
		if err != nil {
			return h.fail(c, err)
		}
		total, turns = total+len(rep.Added), turns+len(sid.turns)
		results = append(results, result{SessionID: sid.id, Added: len(rep.Added), Turns: len(sid.turns)})
	}
	return c.JSON(fiber.Map{"added": total, "buffered_turns": turns, "sessions": results})
}

type bufferedSession struct {
	id    string
	turns []memory.Exchange
}

func sortedSessions(m map[string][]memory.Exchange) []bufferedSession {
	out := make([]bufferedSession, 0, len(m))
	for id, ts := range m {
		out = append(out, bufferedSession{id, ts})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}

func (h handlers) reader() (Reader, error) {
	if h.opts.Reader == nil {
		return nil, learning.Errorf(http.StatusNotFound, "memory_off", "this MetaClaw's memory cannot be read here")
	}
	return h.opts.Reader, nil
}

// stats answers the reference's summarize_memory_store shape
// (metaclaw/memory/metrics.py over store.get_stats).
func (h handlers) stats(c *fiber.Ctx) error {
	r, err := h.reader()
	if err != nil {
		return err
	}
	scope := h.scope(c, c.Query("scope"))
	ctx, cancel := h.context(c)
	defer cancel()
	ms, err := r.Memories(ctx, store.MemoryFilter{Scope: scope, History: true})
	if err != nil {
		return h.fail(c, err)
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

// get answers the reference's memory_get shape.
func (h handlers) get(c *fiber.Ctx) error {
	r, err := h.reader()
	if err != nil {
		return err
	}
	id, err := strconv.ParseInt(c.Params("id"), 10, 64)
	if err != nil || id <= 0 {
		return learning.Errorf(http.StatusBadRequest, "invalid_request", "the memory id must be a positive number")
	}
	ctx, cancel := h.context(c)
	defer cancel()
	m, err := r.Memory(ctx, id)
	if err != nil {
		return h.fail(c, err)
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
