// Package memapi is the memory HTTP API under /v1/memory: search, add,
// forget and ingest, and the reference's routes for external
// orchestrators (buffer_turn, flush_session, ingest without turns, stats,
// GET by id). The proxy mounts it (API.Routes) behind its auth and guards
// — the API key, guardHost against DNS rebinding and guardBrowser against
// web pages — and gives it the scope a request's identity headers name.
// Handlers answer errors as learning.HTTPError, which the proxy writes in
// its error shape.
//
// It imports fiber, store, proxy/learning and app/learner/memory; app
// builds it over the memory service and hands it to the proxy.
package memapi

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/metaclaw/metaclaw/app/learner/memory"
	"github.com/metaclaw/metaclaw/proxy/learning"
	"github.com/metaclaw/metaclaw/store"
)

// Service is what the API asks of the memory service (*memory.Service).
// Errors wrapping memory.ErrInvalid answer 400, store.ErrNotFound 404.
type Service interface {
	Search(ctx context.Context, scope, query string, limit int) ([]memory.Scored, error)
	Add(ctx context.Context, in store.MemoryInput) (memory.Change, error)
	Forget(ctx context.Context, scope string, ids []int64) ([]int64, error)
	ExtractSession(ctx context.Context, sessionID string) (memory.Report, error)
	IngestExchanges(ctx context.Context, scope, sessionID string, exs []memory.Exchange) (memory.Report, error)
}

var _ Service = (*memory.Service)(nil)

// Reader reads stored memories for GET /v1/memory/stats and
// /v1/memory/{id} (*store.DB).
type Reader interface {
	Memory(ctx context.Context, id int64) (store.Memory, error)
	Memories(ctx context.Context, f store.MemoryFilter) ([]store.Memory, error)
}

var _ Reader = (*store.DB)(nil)

// Options configure an API.
type Options struct {
	Service Service
	Reader  Reader // nil: stats and GET by id answer 404
	// FlushEvery is memory.flush_every: buffered turns of a session are
	// extracted once this many wait.
	FlushEvery int
	Logger     *slog.Logger // nil discards
}

// API is the memory HTTP API. Make it with New.
type API struct {
	opts Options
	log  *slog.Logger
	buf  buffer // turns of /v1/memory/buffer_turn (ref.go)
}

// New returns the API over opts.Service.
func New(opts Options) *API {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return &API{opts: opts, log: opts.Logger}
}

// timeout bounds one memory request (an ingest waits for the model).
const timeout = 5 * time.Minute

// Routes registers the endpoints on g, the proxy's /v1/memory group:
// GET /search, POST /ingest, the reference's routes, POST / and
// DELETE /:id. scope is the scope a request names by its identity
// headers, else memory.scope; a scope field or parameter wins over it.
// Each request's context (c.UserContext) bounds its work.
func (a *API) Routes(g fiber.Router, scope func(*fiber.Ctx) string) {
	h := handlers{API: a, scopeOf: scope}
	g.Get("/search", h.search)
	g.Post("/ingest", h.ingest)
	g.Get("/stats", h.stats)
	g.Post("/buffer_turn", h.bufferTurn)
	g.Post("/flush_session", h.flushSession)
	g.Get("/:id", h.get)
	g.Post("/", h.add)
	g.Delete("/:id", h.forget)
}

// handlers are the API's routes with the proxy's scope of a request.
type handlers struct {
	*API
	scopeOf func(*fiber.Ctx) string
}

// scope is the scope a request acts on: explicit (a scope field or query
// parameter) when given, else the proxy's.
func (h handlers) scope(c *fiber.Ctx, explicit string) string {
	if explicit = strings.TrimSpace(explicit); explicit != "" {
		return strings.Clone(explicit)
	}
	return h.scopeOf(c)
}

func (h handlers) context(c *fiber.Ctx) (context.Context, context.CancelFunc) {
	return context.WithTimeout(c.UserContext(), timeout)
}

func (h handlers) search(c *fiber.Ctx) error {
	q := strings.Clone(c.Query("q", c.Query("query")))
	if strings.TrimSpace(q) == "" {
		return learning.Errorf(http.StatusBadRequest, "invalid_request", "the q parameter is required")
	}
	limit, err := strconv.Atoi(c.Query("limit", "10"))
	if err != nil || limit < 1 || limit > 100 {
		return learning.Errorf(http.StatusBadRequest, "invalid_request", "limit must be a number from 1 to 100")
	}
	scope := h.scope(c, c.Query("scope"))
	ctx, cancel := h.context(c)
	defer cancel()
	hits, err := h.opts.Service.Search(ctx, scope, q, limit)
	if err != nil {
		return h.fail(c, err)
	}
	data := make([]memoryJSON, len(hits))
	for i, m := range hits {
		data[i] = toMemoryJSON(m.Memory)
		data[i].Relevance, data[i].Score = round3(m.Relevance), round3(m.Score)
	}
	return c.JSON(fiber.Map{"object": "list", "scope": scope, "data": data})
}

// addRequest is the body of POST /v1/memory.
type addRequest struct {
	Scope      string  `json:"scope"`
	Type       string  `json:"type"`
	Topic      string  `json:"topic"`
	Content    string  `json:"content"`
	Importance float64 `json:"importance"`
	Pinned     bool    `json:"pinned"`
}

func (h handlers) add(c *fiber.Ctx) error {
	var req addRequest
	if err := c.BodyParser(&req); err != nil {
		return learning.Errorf(http.StatusBadRequest, "invalid_json", "body is not valid JSON: %v", err)
	}
	if req.Type == "" {
		req.Type = store.MemoryFact
	}
	in := store.MemoryInput{Scope: h.scope(c, req.Scope), Type: strings.Clone(req.Type), Topic: strings.Clone(req.Topic),
		Content: strings.Clone(req.Content), Importance: req.Importance, Pinned: req.Pinned, Source: "api"}
	ctx, cancel := h.context(c)
	defer cancel()
	ch, err := h.opts.Service.Add(ctx, in)
	if err != nil {
		return h.fail(c, err)
	}
	status := http.StatusCreated
	if ch.Outcome == "reinforced" {
		status = http.StatusOK
	}
	return c.Status(status).JSON(fiber.Map{"outcome": ch.Outcome, "memory": toMemoryJSON(ch.Memory), "ended": nonNilIDs(ch.Ended)})
}

func (h handlers) forget(c *fiber.Ctx) error {
	id, err := strconv.ParseInt(c.Params("id"), 10, 64)
	if err != nil || id <= 0 {
		return learning.Errorf(http.StatusBadRequest, "invalid_request", "the memory id must be a positive number")
	}
	ctx, cancel := h.context(c)
	defer cancel()
	deleted, err := h.opts.Service.Forget(ctx, h.scope(c, c.Query("scope")), []int64{id})
	if err != nil {
		return h.fail(c, err)
	}
	return c.JSON(fiber.Map{"deleted": nonNilIDs(deleted)})
}

// turnJSON is one exchange given to /v1/memory/ingest.
type turnJSON struct {
	User      string `json:"user"`
	Assistant string `json:"assistant"`
}

// ingestRequest is the body of POST /v1/memory/ingest.
type ingestRequest struct {
	Scope     string     `json:"scope"`
	SessionID string     `json:"session_id"`
	Turns     []turnJSON `json:"turns"`
}

// ingestJSON is the answer of POST /v1/memory/ingest with turns or a
// recorded session.
type ingestJSON struct {
	Extractor  string  `json:"extractor"` // model, rules, or "" when the user said nothing
	Turns      int     `json:"turns"`
	Added      []int64 `json:"added"`
	Reinforced []int64 `json:"reinforced"`
	Superseded []int64 `json:"superseded"`
	Queued     bool    `json:"queued"` // turns wait for a model pass
}

func (h handlers) ingest(c *fiber.Ctx) error {
	var req ingestRequest
	if err := c.BodyParser(&req); err != nil {
		return learning.Errorf(http.StatusBadRequest, "invalid_json", "body is not valid JSON: %v", err)
	}
	if len(req.Turns) == 0 && (req.SessionID == "" || h.buf.has(req.SessionID)) {
		return h.refIngest(c, strings.Clone(req.SessionID), strings.Clone(req.Scope)) // the reference's body
	}
	scope, session := h.scope(c, req.Scope), strings.Clone(req.SessionID)
	exs := make([]memory.Exchange, len(req.Turns))
	for i, t := range req.Turns {
		exs[i] = memory.Exchange{User: strings.Clone(t.User), Assistant: strings.Clone(t.Assistant)}
	}
	ctx, cancel := h.context(c)
	defer cancel()
	rep, err := h.extract(ctx, scope, session, exs)
	if err != nil {
		return h.fail(c, err)
	}
	return c.JSON(ingestJSON{Extractor: rep.Extractor, Turns: rep.Turns, Added: nonNilIDs(rep.Added),
		Reinforced: nonNilIDs(rep.Reinforced), Superseded: nonNilIDs(rep.Superseded), Queued: rep.Queued})
}

// extract reads memories out of exs, or out of the recorded session when
// exs is empty.
func (a *API) extract(ctx context.Context, scope, session string, exs []memory.Exchange) (memory.Report, error) {
	if len(exs) == 0 {
		return a.opts.Service.ExtractSession(ctx, session)
	}
	return a.opts.Service.IngestExchanges(ctx, scope, session, exs)
}

// fail turns a service error into the API's answer: 404 for what does not
// exist, 400 for what was asked wrong, 500 (logged) for the rest.
func (a *API) fail(c *fiber.Ctx, err error) error {
	switch {
	case errors.Is(err, store.ErrNotFound):
		return learning.Errorf(http.StatusNotFound, "not_found", "%v", err)
	case errors.Is(err, memory.ErrInvalid):
		return learning.Errorf(http.StatusBadRequest, "invalid_request", "%v", err)
	}
	a.log.Warn("memory request failed", "path", c.Path(), "err", err)
	return learning.Errorf(http.StatusInternalServerError, "memory_error", "%v", err)
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
