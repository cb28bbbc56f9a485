package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/metaclaw/metaclaw/app/learner/skillfolder"
)

// learnStatus is what status shows of the skills folder, as the running
// app last saved it.
type learnStatus struct {
	SkillsFolder *skillfolder.Summary `json:"skills_folder,omitempty"`
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
	return ls
}

func printLearnStatus(w io.Writer, ls learnStatus) {
	if sf := ls.SkillsFolder; sf != nil {
		fmt.Fprintf(w, "  skills:   %s (%d files", sf.Dir, sf.Files)
		if len(sf.Broken) > 0 {
			fmt.Fprintf(w, ", %d skipped", len(sf.Broken))
		}
		fmt.Fprintln(w, ")")
		for _, b := range sf.Broken {
			fmt.Fprintf(w, "            skipped %s: %s\n", b.Path, b.Err)
		}
	}
}
