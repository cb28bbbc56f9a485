package proxy

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/metaclaw/metaclaw/store"
)

// MemoryService is what the memory endpoints need; app adapts the memory
// service of app/learner/memory to it. Errors wrapping store.ErrNotFound
// answer 404, those wrapping ErrInvalidMemory 400.
type MemoryService interface {
	SearchMemories(ctx context.Context, scope, query string, limit int) ([]MemoryHit, error)
	AddMemory(ctx context.Context, in store.MemoryInput) (MemoryChange, error)
	ForgetMemory(ctx context.Context, scope string, id int64) ([]int64, error)
	IngestMemories(ctx context.Context, req MemoryIngest) (MemoryIngestResult, error)
}

// ErrInvalidMemory marks a MemoryService error caused by the request
// (empty content, unknown type): it answers 400.
var ErrInvalidMemory = errors.New("invalid memory request")

// MemoryHit is a memory found by a search.
type MemoryHit struct {
	Memory    store.Memory
	Relevance float64 // 0..1
	Score     float64
}

// MemoryChange is what adding a memory did: "added", "reinforced" (the
// scope already said so) or "superseded" (it replaced older ones).
type MemoryChange struct {
	Outcome string
	Memory  store.Memory
	Ended   []int64
}

// MemoryIngest asks for extraction: from a recorded session (SessionID
// alone), or from the turns given.
type MemoryIngest struct {
	Scope     string
	SessionID string
	Turns     []MemoryTurn
}

// MemoryTurn is one exchange given to /v1/memory/ingest.
type MemoryTurn struct {
	User      string `json:"user"`
	Assistant string `json:"assistant"`
}

// MemoryIngestResult says what an ingest did.
type MemoryIngestResult struct {
	Extractor  string  `json:"extractor"` // model, rules, or "" when the user said nothing
	Turns      int     `json:"turns"`
	Added      []int64 `json:"added"`
	Reinforced []int64 `json:"reinforced"`
	Superseded []int64 `json:"superseded"`
	Queued     bool    `json:"queued"` // turns wait for a model pass
}

// memoryTimeout bounds one memory request (an ingest waits for the model).
const memoryTimeout = 5 * time.Minute

// memoryRoutes registers the memory endpoints under /v1 (behind the
// proxy's auth): GET /memory/search, POST /memory, DELETE /memory/:id and
// POST /memory/ingest.
func (s *Server) memoryRoutes(v1 fiber.Router) {
	g := v1.Group("/memory", s.memoryGuard)
	g.Get("/search", s.handleMemorySearch)
	g.Post("/ingest", s.handleMemoryIngest)
	s.refRoutes(v1, g) // the reference's routes (memory_ref.go)
	g.Post("/", s.handleMemoryAdd)
	g.Delete("/:id", s.handleMemoryForget)
}

// memoryGuard answers 404 when memory is off and requires JSON bodies.
// Web pages are kept away from memories by the guards every route has
// (guardHost, guardBrowser): a page could otherwise read them through DNS
// rebinding or write them with a form post.
func (s *Server) memoryGuard(c *fiber.Ctx) error {
	if s.opts.Memory == nil {
		return sendError(c, http.StatusNotFound, "memory_off", "memory is not available in this MetaClaw")
	}
	if c.Method() == http.MethodPost && !strings.HasPrefix(c.Get(fiber.HeaderContentType), fiber.MIMEApplicationJSON) {
		return sendError(c, http.StatusUnsupportedMediaType, "invalid_content_type", "send the body as application/json")
	}
	return c.Next()
}

// memoryScope is the scope a memory request acts on: a scope field or
// query parameter, else the identity headers, else memory.scope.
func (s *Server) memoryScope(c *fiber.Ctx, explicit string) string {
	if explicit = strings.TrimSpace(explicit); explicit != "" {
		return strings.Clone(explicit)
	}
	get := func(h string) string { return strings.TrimSpace(strings.Clone(c.Get(h))) }
	return scopeOf(get(hdrMemoryScope), get(hdrUserID), get(hdrWorkspaceID), s.conf().Memory.Scope)
}

func (s *Server) handleMemorySearch(c *fiber.Ctx) error {
	q := strings.Clone(c.Query("q", c.Query("query")))
	if strings.TrimSpace(q) == "" {
		return sendError(c, http.StatusBadRequest, "invalid_request", "the q parameter is required")
	}
	limit, err := strconv.Atoi(c.Query("limit", "10"))
	if err != nil || limit < 1 || limit > 100 {
		return sendError(c, http.StatusBadRequest, "invalid_request", "limit must be a number from 1 to 100")
	}
	scope := s.memoryScope(c, c.Query("scope"))
	ctx, cancel := context.WithTimeout(s.baseCtx, memoryTimeout)
	defer cancel()
	hits, err := s.opts.Memory.SearchMemories(ctx, scope, q, limit)
	if err != nil {
		return s.memoryError(c, err)
	}
	data := make([]memoryJSON, len(hits))
	for i, h := range hits {
		data[i] = toMemoryJSON(h.Memory)
		data[i].Relevance, data[i].Score = round3(h.Relevance), round3(h.Score)
	}
	return c.JSON(fiber.Map{"object": "list", "scope": scope, "data": data})
}

// memoryAddRequest is the body of POST /v1/memory.
type memoryAddRequest struct {
	Scope      string  `json:"scope"`
	Type       string  `json:"type"`
	Topic      string  `json:"topic"`
	Content    string  `json:"content"`
	Importance float64 `json:"importance"`
	Pinned     bool    `json:"pinned"`
}

func (s *Server) handleMemoryAdd(c *fiber.Ctx) error {
	var req memoryAddRequest
	if err := c.BodyParser(&req); err != nil {
		return sendError(c, http.StatusBadRequest, "invalid_json", "body is not valid JSON: "+err.Error())
	}
	if req.Type == "" {
		req.Type = store.MemoryFact
	}
	in := store.MemoryInput{Scope: s.memoryScope(c, req.Scope), Type: strings.Clone(req.Type), Topic: strings.Clone(req.Topic),
		Content: strings.Clone(req.Content), Importance: req.Importance, Pinned: req.Pinned, Source: "api"}
	ctx, cancel := context.WithTimeout(s.baseCtx, memoryTimeout)
	defer cancel()
	ch, err := s.opts.Memory.AddMemory(ctx, in)
	if err != nil {
		return s.memoryError(c, err)
	}
	status := http.StatusCreated
	if ch.Outcome == "reinforced" {
		status = http.StatusOK
	}
	return c.Status(status).JSON(fiber.Map{"outcome": ch.Outcome, "memory": toMemoryJSON(ch.Memory), "ended": nonNilIDs(ch.Ended)})
}

func (s *Server) handleMemoryForget(c *fiber.Ctx) error {
	id, err := strconv.ParseInt(c.Params("id"), 10, 64)
	if err != nil || id <= 0 {
		return sendError(c, http.StatusBadRequest, "invalid_request", "the memory id must be a positive number")
	}
	ctx, cancel := context.WithTimeout(s.baseCtx, memoryTimeout)
	defer cancel()
	deleted, err := s.opts.Memory.ForgetMemory(ctx, s.memoryScope(c, c.Query("scope")), id)
	if err != nil {
		return s.memoryError(c, err)
	}
	return c.JSON(fiber.Map{"deleted": nonNilIDs(deleted)})
}

// memoryIngestRequest is the body of POST /v1/memory/ingest.
type memoryIngestRequest struct {
	Scope     string       `json:"scope"`
	SessionID string       `json:"session_id"`
	Turns     []MemoryTurn `json:"turns"`
}

func (s *Server) handleMemoryIngest(c *fiber.Ctx) error {
	var req memoryIngestRequest
	if err := c.BodyParser(&req); err != nil {
		return sendError(c, http.StatusBadRequest, "invalid_json", "body is not valid JSON: "+err.Error())
	}
	if len(req.Turns) == 0 && (req.SessionID == "" || s.refMem.has(req.SessionID)) {
		return s.handleRefIngest(c, strings.Clone(req.SessionID), strings.Clone(req.Scope)) // the reference's body
	}
	in := MemoryIngest{Scope: s.memoryScope(c, req.Scope), SessionID: strings.Clone(req.SessionID)}
	for _, t := range req.Turns {
		in.Turns = append(in.Turns, MemoryTurn{User: strings.Clone(t.User), Assistant: strings.Clone(t.Assistant)})
	}
	ctx, cancel := context.WithTimeout(s.baseCtx, memoryTimeout)
	defer cancel()
	res, err := s.opts.Memory.IngestMemories(ctx, in)
	if err != nil {
		return s.memoryError(c, err)
	}
	res.Added, res.Reinforced, res.Superseded = nonNilIDs(res.Added), nonNilIDs(res.Reinforced), nonNilIDs(res.Superseded)
	return c.JSON(res)
}

func (s *Server) memoryError(c *fiber.Ctx, err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return sendError(c, http.StatusNotFound, "not_found", err.Error())
	}
	if errors.Is(err, ErrInvalidMemory) {
		return sendError(c, http.StatusBadRequest, "invalid_request", err.Error())
	}
	s.log.Warn("memory request failed", "path", c.Path(), "err", err)
	return sendError(c, http.StatusInternalServerError, "memory_error", err.Error())
}

// memoryJSON is a memory as the endpoints show it.
type memoryJSON struct {
	ID         int64   `json:"id"`
	Scope      string  `json:"scope"`
	Type       string  `json:"type"`
	Topic      string  `json:"topic,omitempty"`
	Content    string  `json:"content"`
	Importance float64 `json:"importance"`
	Confidence float64 `json:"confidence"`
	Pinned     bool    `json:"pinned"`
	Source     string  `json:"source,omitempty"`
	SessionID  string  `json:"session_id,omitempty"`
	CreatedAt  string  `json:"created_at"`
	UpdatedAt  string  `json:"updated_at"`
	Relevance  float64 `json:"relevance,omitempty"`
	Score      float64 `json:"score,omitempty"`
}

func toMemoryJSON(m store.Memory) memoryJSON {
	return memoryJSON{ID: m.ID, Scope: m.Scope, Type: m.Type, Topic: m.Topic, Content: m.Content,
		Importance: round3(m.Importance), Confidence: round3(m.Confidence), Pinned: m.Pinned, Source: m.Source,
		SessionID: m.SessionID, CreatedAt: m.CreatedAt.UTC().Format(time.RFC3339), UpdatedAt: m.UpdatedAt.UTC().Format(time.RFC3339)}
}

func round3(v float64) float64 {
	f, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'f', 3, 64), 64)
	return f
}

func nonNilIDs(ids []int64) []int64 {
	if ids == nil {
		return []int64{}
	}
	return ids
}
