package bench

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/metaclaw/metaclaw/store"
)

// WriteText writes a report for a terminal.
func WriteText(w io.Writer, rep *store.BenchReport) error {
	var b strings.Builder
	fmt.Fprintf(&b, "MetaClaw bench %s: %s, %d days, agent %s, model %s (%s)\n\n", rep.ID, rep.Benchmark, len(rep.Days),
		rep.Agent, rep.Model, rep.Status)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "arm\tdays\trounds\taccuracy\tmulti-choice\tfile checks\tagent calls\tagent tokens\tlearning calls\tlearning tokens\tskills\tmemories\t")
	for _, a := range rep.Arms {
		s := a.Summary
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.3f\t%.3f\t%d/%d %s\t%d\t%d\t%d\t%d\t%d\t%d\t\n", a.Name, a.DaysDone, s.Rounds, s.Accuracy,
			s.MultiChoiceMean, s.FileChecksOK, s.FileChecks, pct(s.FileCheckRate, s.FileChecks), a.Agent.Calls,
			a.Agent.PromptTokens+a.Agent.CompletionTokens, a.Learning.Calls, a.Learning.PromptTokens+a.Learning.CompletionTokens,
			len(a.Skills), len(a.Memories))
	}
	tw.Flush()
	writeGrid(&b, "Accuracy per day", rep, dayKeys(rep), func(a store.BenchArm) []store.BenchScore { return a.ByDay })
	writeGrid(&b, "Accuracy per preference arc", rep, arcKeys(rep), func(a store.BenchArm) []store.BenchScore { return a.ByArc })
	if len(rep.Diffs) > 0 {
		fmt.Fprintf(&b, "\nDifferences (%s)\n", rep.Diffs[0].Method)
		for _, d := range rep.Diffs {
			fmt.Fprintf(&b, "  %-28s %+.3f  [%+.3f, %+.3f]  over %d rounds\n", d.Arm+" − "+d.Baseline, d.Mean, d.Low, d.High, d.Rounds)
		}
	}
	for _, a := range rep.Arms {
		if len(a.Skills) == 0 && len(a.Memories) == 0 && a.TrainingSteps == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n%s ended with %d skills, %d memories, %d training steps\n", a.Name, len(a.Skills), len(a.Memories), a.TrainingSteps)
		for _, s := range a.Skills {
			if s.Source != "starter" {
				fmt.Fprintf(&b, "  skill %s (v%d, %s): %s\n", s.Name, s.Version, s.Source, s.Description)
			}
		}
		for _, m := range a.Memories {
			fmt.Fprintf(&b, "  memory (%s): %s\n", m.Type, tail(m.Content, 160))
		}
	}
	if len(rep.Notes) > 0 {
		b.WriteString("\nNotes\n")
		for _, n := range rep.Notes {
			fmt.Fprintf(&b, "  %s\n", n)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func pct(rate float64, n int) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*rate)
}

func dayKeys(rep *store.BenchReport) []string {
	var out []string
	for _, d := range rep.Days {
		out = append(out, d.ID)
	}
	return out
}

func arcKeys(rep *store.BenchReport) []string {
	var out []string
	seen := map[string]bool{}
	for _, d := range rep.Days {
		if d.Arc != "" && !seen[d.Arc] {
			seen[d.Arc] = true
			out = append(out, d.Arc)
		}
	}
	return out
}

// writeGrid writes one accuracy per key (row) and arm (column).
func writeGrid(b *strings.Builder, title string, rep *store.BenchReport, keys []string, scores func(store.BenchArm) []store.BenchScore) {
	if len(keys) == 0 {
		return
	}
	fmt.Fprintf(b, "\n%s\n", title)
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "\t")
	for _, a := range rep.Arms {
		fmt.Fprintf(tw, "%s\t", a.Name)
	}
	fmt.Fprintln(tw)
	for _, k := range keys {
		fmt.Fprintf(tw, "%s\t", k)
		for _, a := range rep.Arms {
			cell := "-"
			for _, s := range scores(a) {
				if s.Key == k {
					cell = fmt.Sprintf("%.3f", s.Accuracy)
				}
			}
			fmt.Fprintf(tw, "%s\t", cell)
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}
