package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/metaclaw/metaclaw/app/learner/rollout"
	"github.com/metaclaw/metaclaw/app/learner/skillfolder"
)

// learnStatus is what status shows of the skills folder and the rollout, as the running
// app last saved it.
type learnStatus struct {
	SkillsFolder *skillfolder.Summary `json:"skills_folder,omitempty"`
	Rollout      *rollout.Progress    `json:"rollout,omitempty"`
}

// readLearnStatus reads the skills folder's summary from the database.
func readLearnStatus() learnStatus {
	var ls learnStatus
	db, _, err := openDB()
	if err != nil {
		return ls
	}
	defer db.Close()
	ctx := context.Background()
	if sum, ok, err := skillfolder.ReadSummary(ctx, db); ok && err == nil {
		ls.SkillsFolder = &sum
	}
	if p, ok, err := rollout.ReadProgress(ctx, db); ok && err == nil {
		ls.Rollout = &p
	}
	return ls
}

func printLearnStatus(w io.Writer, ls learnStatus) {
	if p := ls.Rollout; p != nil {
		total := "forever"
		if p.Rounds > 0 {
			total = fmt.Sprintf("of %d", p.Tasks*p.Rounds)
		}
		fmt.Fprintf(w, "  rollout:  %d episodes done %s, %d running, %d failed (%d tasks in %s)\n", p.Done, total, p.Running, p.Failed, p.Tasks, p.Dir)
		if p.LastError != "" {
			fmt.Fprintf(w, "            last error: %s\n", p.LastError)
		}
	}
	if sf := ls.SkillsFolder; sf != nil {
		fmt.Fprintf(w, "  skills:   %s (%d files", sf.Dir, sf.Files)
		if len(sf.Broken) > 0 {
			fmt.Fprintf(w, ", %d skipped", len(sf.Broken))
		}
		fmt.Fprintln(w, ")")
		for _, b := range sf.Broken {
			fmt.Fprintf(w, "            skipped %s: %s\n", b.Path, b.Err)
		}
		for _, n := range sf.Notices {
			fmt.Fprintf(w, "            %s: %s\n", n.Path, n.Note)
		}
	}
}
