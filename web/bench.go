package web

import (
	"errors"
	"fmt"

	"github.com/gofiber/fiber/v2"
	"github.com/metaclaw/metaclaw/store"
)

// benchData is the Bench page: one `metaclaw bench run` report (the most
// recently updated, or the one ?run= names) and the list of runs.
type benchData struct {
	Runs   []store.BenchReport
	Report *store.BenchReport
	Chart  MultiLineChart
	Arcs   []string
}

// maxBenchRuns bounds the runs listed.
const maxBenchRuns = 20

func (s *Server) bench(c *fiber.Ctx) error {
	ctx := c.UserContext()
	runs, err := s.opts.DB.BenchReports(ctx, maxBenchRuns)
	if err != nil {
		return err
	}
	d := benchData{Runs: runs}
	switch id := c.Query("run"); {
	case id != "":
		rep, err := s.opts.DB.BenchReportByID(ctx, id)
		if errors.Is(err, store.ErrNotFound) {
			return fiber.ErrNotFound
		}
		if err != nil {
			return err
		}
		d.Report = &rep
	case len(runs) > 0:
		d.Report = &runs[0]
	}
	if d.Report != nil {
		d.Chart = benchDayChart(*d.Report)
		seen := map[string]bool{}
		for _, day := range d.Report.Days {
			if day.Arc != "" && !seen[day.Arc] {
				seen[day.Arc] = true
				d.Arcs = append(d.Arcs, day.Arc)
			}
		}
	}
	return s.render(c, fiber.StatusOK, benchPage(s.page(c, "Bench", "bench"), d))
}

// benchURL links a run on the Bench page.
func benchURL(id string) string { return "/bench?run=" + id }

func pct1(v float64) string { return fmt.Sprintf("%.1f%%", 100*v) }

func signedPct(v float64) string { return fmt.Sprintf("%+.1f", 100*v) }

// fileChecks says how many file checks passed.
func fileChecks(s store.BenchScore) string {
	if s.FileChecks == 0 {
		return "–"
	}
	return fmt.Sprintf("%d/%d (%s)", s.FileChecksOK, s.FileChecks, pct1(s.FileCheckRate))
}

// usage says calls and tokens.
func usage(u store.BenchUsage) string {
	return fmt.Sprintf("%d calls, %d tokens", u.Calls, u.PromptTokens+u.CompletionTokens)
}

// arcScore is an arm's accuracy on an arc ("–" when it has none).
func arcScore(a store.BenchArm, arc string) string {
	for _, s := range a.ByArc {
		if s.Key == arc {
			return pct1(s.Accuracy)
		}
	}
	return "–"
}

// learntSkills are the skills an arm ended with that it did not start
// with.
func learntSkills(a store.BenchArm) []store.BenchSkill {
	var out []store.BenchSkill
	for _, s := range a.Skills {
		if s.Source != "starter" || s.Version > 1 {
			out = append(out, s)
		}
	}
	return out
}
