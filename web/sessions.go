package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/url"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/metaclaw/metaclaw/store"
)

// maxShown caps how much of a request body a turn's page shows.
const maxShown = 64 << 10

func (s *Server) sessionList(c *fiber.Ctx) error {
	list, err := s.opts.DB.RecentSessions(c.UserContext(), 200)
	if err != nil {
		return err
	}
	return s.render(c, fiber.StatusOK, sessionsPage(s.page(c, "Sessions", "sessions"), list))
}

// turnRow is a turn with its score, for a session's page.
type turnRow struct {
	store.Turn
	Score  *store.Score
	Inject []string
}

func (s *Server) sessionDetail(c *fiber.Ctx) error {
	ctx := c.UserContext()
	sess, err := s.opts.DB.Session(ctx, c.Params("id"))
	if err != nil {
		return err
	}
	turns, err := s.opts.DB.SessionTurnsBrief(ctx, sess.ID)
	if err != nil {
		return err
	}
	rows := make([]turnRow, len(turns))
	for i, t := range turns {
		rows[i] = turnRow{Turn: t, Inject: injectedIDs(t.Injected)}
		if rows[i].Score, err = s.score(c, t.ID); err != nil {
			return err
		}
	}
	return s.render(c, fiber.StatusOK, sessionPage(s.page(c, "Session "+sess.ID, "sessions"), sess, rows))
}

// score returns a turn's score, nil when it has none.
func (s *Server) score(c *fiber.Ctx, turnID int64) (*store.Score, error) {
	sc, err := s.opts.DB.TurnScore(c.UserContext(), turnID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &sc, nil
}

// turnData is a turn's page: the turn, its score, what was injected and
// the request as sent upstream (pretty-printed, capped).
type turnData struct {
	turnRow
	Request    string
	Truncated  bool
	Explain    *SkillExplanation // nil: no explainer
	ExplainErr string
}

func (s *Server) turnDetail(c *fiber.Ctx) error {
	id, err := strconv.ParseInt(c.Params("id"), 10, 64)
	if err != nil {
		return fiber.ErrNotFound
	}
	t, err := s.opts.DB.TurnByID(c.UserContext(), id)
	if err != nil {
		return err
	}
	d := turnData{turnRow: turnRow{Turn: t, Inject: injectedIDs(t.Injected)}}
	if d.Score, err = s.score(c, t.ID); err != nil {
		return err
	}
	d.Request, d.Truncated = prettyBody(t.Request)
	if s.opts.Skills != nil && t.Type == store.TurnMain {
		ex, err := s.opts.Skills.ExplainSkills(c.UserContext(), t.API, t.Request)
		if err != nil {
			d.ExplainErr = err.Error()
		}
		d.Explain = &ex
	}
	return s.render(c, fiber.StatusOK, turnPage(s.page(c, "Turn "+strconv.FormatInt(t.ID, 10), "sessions"), d))
}

// injectedIDs parses a turn's injected ids ("skill:name@3", "memory:12").
func injectedIDs(js string) []string {
	var ids []string
	if js != "" {
		_ = json.Unmarshal([]byte(js), &ids)
	}
	return ids
}

// injectedLink returns the page of an injected item, "" when unknown.
func injectedLink(id string) string {
	if rest, ok := strings.CutPrefix(id, "skill:"); ok {
		name, _, _ := strings.Cut(rest, "@")
		return skillURL(name)
	}
	if rest, ok := strings.CutPrefix(id, "memory:"); ok {
		return "/memory/" + rest
	}
	return ""
}

// prettyBody indents a JSON body and caps it at maxShown bytes.
func prettyBody(body []byte) (string, bool) {
	var buf bytes.Buffer
	if json.Indent(&buf, body, "", "  ") != nil {
		buf.Reset()
		buf.Write(body)
	}
	if buf.Len() > maxShown {
		return strings.ToValidUTF8(string(buf.Bytes()[:maxShown]), ""), true
	}
	return buf.String(), false
}

func sessionURL(id string) string { return "/sessions/" + url.PathEscape(id) }
