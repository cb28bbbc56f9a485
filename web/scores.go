package web

import (
	"github.com/gofiber/fiber/v2"
)

// scoresData is the scores page: the judge's scores over time and each
// skill's efficacy.
type scoresData struct {
	Line               LineChart
	Bars               BarChart
	Scored             int
	Good, Neutral, Bad int
}

func (s *Server) scores(c *fiber.Ctx) error {
	ctx := c.UserContext()
	scored, err := s.opts.DB.ScoredTurns(ctx)
	if err != nil {
		return err
	}
	eff, err := s.opts.DB.SkillEfficacy(ctx)
	if err != nil {
		return err
	}
	d := scoresData{Line: scoreLine(dailyScores(scored, s.opts.Now().Location(), 60)), Bars: efficacyBars(eff, 15), Scored: len(scored)}
	for _, t := range scored {
		switch {
		case t.Score > 0:
			d.Good++
		case t.Score < 0:
			d.Bad++
		default:
			d.Neutral++
		}
	}
	return s.render(c, fiber.StatusOK, scoresPage(s.page(c, "Scores", "scores"), d))
}
