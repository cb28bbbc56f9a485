package web

import (
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/metaclaw/metaclaw/store"
)

// dashboardData is what the dashboard shows.
type dashboardData struct {
	Status     Status
	Paused     bool
	Windows    WindowStatus
	Counts     store.Counts
	Skills     int
	Memories   int
	Generation int
	Recent     []store.Session
}

func (s *Server) dashboard(c *fiber.Ctx) error {
	ctx := c.UserContext()
	d := dashboardData{Status: s.opts.Control.Status(), Paused: s.opts.Control.Paused(), Windows: s.opts.Control.Windows()}
	now := s.opts.Now()
	var err error
	if d.Counts, err = s.opts.DB.CountTurns(ctx, time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, now.Location())); err != nil {
		return err
	}
	skills, err := s.opts.DB.Skills(ctx, false)
	if err != nil {
		return err
	}
	d.Skills = len(skills)
	scopes, err := s.opts.DB.MemoryScopes(ctx)
	if err != nil {
		return err
	}
	for _, sc := range scopes {
		d.Memories += sc.Current
	}
	if d.Generation, err = s.opts.DB.SkillGeneration(ctx); err != nil {
		return err
	}
	if d.Recent, err = s.opts.DB.RecentSessions(ctx, 10); err != nil {
		return err
	}
	return s.render(c, fiber.StatusOK, dashboardPage(s.page(c, "Dashboard", "dashboard"), d))
}

// setLearning pauses or resumes learning.
func (s *Server) setLearning(c *fiber.Ctx) error {
	var paused bool
	switch c.Params("action") {
	case "pause":
		paused = true
	case "resume":
	default:
		return fiber.ErrNotFound
	}
	if err := s.opts.Control.SetPaused(paused); err != nil {
		return err
	}
	msg := "Learning resumed."
	if paused {
		msg = "Learning paused: the proxy keeps serving; nothing is judged, evolved, extracted or trained."
	}
	return s.done(c, "/", msg)
}

// rolloutTotal is the episodes the rollout will run in all.
func rolloutTotal(r *RolloutStatus) string {
	if r.Rounds <= 0 {
		return "(runs forever)"
	}
	return "of " + itoa(r.Tasks*r.Rounds)
}

// rolloutState says in a word where the rollout is.
func rolloutState(r *RolloutStatus) string {
	switch {
	case r.Running > 0:
		return "running"
	case r.Rounds > 0 && r.Tasks > 0 && r.Done >= r.Tasks*r.Rounds:
		return "done"
	case r.Tasks == 0 && r.LastError != "":
		return "no tasks"
	}
	return "waiting"
}
