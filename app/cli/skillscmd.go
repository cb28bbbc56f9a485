package cli

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/metaclaw/metaclaw/app/learner"
	"github.com/metaclaw/metaclaw/app/learner/skills"
	"github.com/metaclaw/metaclaw/assets"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
)

const skillsUsage = "list [--all] | show NAME [--version N] | search [--explain] TEXT | import DIR | export DIR | enable NAME | disable NAME | delete NAME | revert NAME VERSION | sync"

func runSkills(env *Env, args []string) error {
	if len(args) == 0 {
		return usageError("usage: metaclaw skills %s", skillsUsage)
	}
	db, _, err := openDB()
	if err != nil {
		return err
	}
	defer db.Close()
	ctx := context.Background()
	if _, err := skills.InstallStarter(ctx, db, assets.Skills()); err != nil {
		return err
	}
	sub, rest := args[0], args[1:]
	switch sub {
	case "list":
		return skillsList(ctx, env, db, rest)
	case "show":
		return skillsShow(ctx, env, db, rest)
	case "search":
		return skillsSearch(ctx, env, db, rest)
	case "import":
		return skillsImport(ctx, env, db, rest)
	case "export":
		return skillsExport(ctx, env, db, rest)
	case "enable", "disable", "delete":
		return skillsToggle(ctx, env, db, sub, rest)
	case "revert":
		return skillsRevert(ctx, env, db, rest)
	case "sync":
		return skillsSync(ctx, env, db, rest)
	}
	return usageError("skills: unknown subcommand %q; usage: metaclaw skills %s", sub, skillsUsage)
}

func skillsList(ctx context.Context, env *Env, db *store.DB, args []string) error {
	fs := newFlags(env, "skills list", "[--all]")
	all := fs.Bool("all", false, "include disabled and retired skills")
	if err := parse(fs, args); err != nil {
		return err
	}
	list, err := db.Skills(ctx, *all)
	if err != nil {
		return err
	}
	eff, err := db.SkillEfficacy(ctx)
	if err != nil {
		return err
	}
	gen, _ := db.SkillGeneration(ctx)
	w := tabwriter.NewWriter(env.Stdout, 0, 2, 2, ' ', 0)
	fmt.Fprintln(w, "NAME\tVER\tCATEGORY\tSTATE\tINJECTED\tSCORE WITH\tWITHOUT\tRANKING")
	for _, s := range list {
		e := eff[s.Name]
		fmt.Fprintf(w, "%s\t%d\t%s\t%s\t%d\t%s\t%s\t%s\n", s.Name, s.Version, s.Category, state(s), e.Injected,
			meanText(e.MeanWith, e.ScoredWith), meanText(e.MeanWithout, e.ScoredWithout), factorText(e))
	}
	w.Flush()
	fmt.Fprintf(env.Stdout, "\n%d skills, skill generation %d; RANKING is the efficacy factor on a skill's retrieval score "+
		"(after %d scored turns with it; - : not enough evidence)\n", len(list), gen, skills.EfficacyMinTurns)
	return nil
}

func state(s store.Skill) string {
	switch {
	case s.Retired:
		return "retired"
	case !s.Enabled:
		return "disabled"
	}
	return "enabled"
}

func meanText(m float64, n int) string {
	if n == 0 || math.IsNaN(m) {
		return "-"
	}
	return fmt.Sprintf("%+.2f (%d)", m, n)
}

// factorText shows the efficacy factor of a skill's ranking, "-" while it
// has too little evidence.
func factorText(e store.Efficacy) string {
	f := skills.EfficacyFactor(e)
	if f == 1 {
		return "-"
	}
	return fmt.Sprintf("×%.2f", f)
}

func skillsShow(ctx context.Context, env *Env, db *store.DB, args []string) error {
	fs := newFlags(env, "skills show", "NAME [--version N]")
	version := fs.Int("version", 0, "show this version instead of the current one")
	if err := parse(fs, reorder(fs, args)); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageError("usage: metaclaw skills show NAME [--version N]")
	}
	s, err := db.Skill(ctx, fs.Arg(0))
	if err != nil {
		return notFound(err)
	}
	versions, err := db.SkillVersions(ctx, s.Name)
	if err != nil {
		return err
	}
	if *version != 0 {
		if s, err = versionOf(s, versions, *version); err != nil {
			return err
		}
	}
	env.Stdout.Write(skills.Format(s))
	fmt.Fprintf(env.Stdout, "\n# %s: version %d of %d, %s\n", s.Name, s.Version, len(versions), state(s))
	for _, v := range versions {
		from := v.Source
		if v.SessionID != "" {
			from += ", session " + v.SessionID
		}
		fmt.Fprintf(env.Stdout, "#   v%d  %s  %s  generation %d  %s\n", v.Version, v.CreatedAt.Format("2006-01-02 15:04"), from, v.Generation, v.Note)
	}
	return nil
}

func versionOf(s store.Skill, versions []store.SkillVersion, n int) (store.Skill, error) {
	for _, v := range versions {
		if v.Version == n {
			s.Version, s.Description, s.Category, s.Tags, s.Body = v.Version, v.Description, v.Category, v.Tags, v.Body
			return s, nil
		}
	}
	return s, &exitError{code: 1, msg: fmt.Sprintf("skill %s has no version %d", s.Name, n)}
}

func notFound(err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return &exitError{code: 1, msg: err.Error()}
	}
	return err
}

func skillsSearch(ctx context.Context, env *Env, db *store.DB, args []string) error {
	fs := newFlags(env, "skills search", "[--explain] TEXT")
	explain := fs.Bool("explain", false, "show why each skill was injected or left out: scores, thresholds, matched words")
	if err := parse(fs, reorder(fs, args)); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usageError("usage: metaclaw skills search [--explain] TEXT")
	}
	_, _, cfg, err := loadConfig()
	if err != nil {
		return err
	}
	r := learner.BuildSkillRetriever(learner.Deps{DB: db, Config: cfg})
	defer r.Close()
	sel, err := r.Select(ctx, []skills.Message{{Role: "user", Text: strings.Join(fs.Args(), " ")}})
	if err != nil {
		return err
	}
	if len(sel.Skills) == 0 {
		fmt.Fprintln(env.Stdout, "no skill fits (nothing would be injected)")
	}
	for _, s := range sel.Skills {
		fmt.Fprintf(env.Stdout, "%s@%d  %s\n", s.Name, s.Version, s.Description)
	}
	if len(sel.Skills) > 0 {
		fmt.Fprintf(env.Stdout, "\n%d skills, about %d tokens injected (%s retrieval)\n", len(sel.Skills), sel.Tokens, sel.Mode)
	}
	if sel.Mode != "" && sel.Mode != r.Mode() {
		fmt.Fprintf(env.Stdout, "note: %s retrieval is configured, but the request's embedding did not come in time: keyword retrieval answered\n", r.Mode())
	}
	if *explain {
		writeExplanation(env, sel)
	}
	return nil
}

// writeExplanation prints every skill considered for a request: its
// evidence, and why it was injected or left out.
func writeExplanation(env *Env, sel skills.Selection) {
	fmt.Fprintf(env.Stdout, "\nrequest terms: %s\n", strings.Join(sel.Terms, " "))
	switch sel.Language {
	case "en":
	case "":
		fmt.Fprintln(env.Stdout, "language: not told (searched as English: the asks in other languages were not)")
	default:
		fmt.Fprintf(env.Stdout, "language: %s (the skills' asks in other languages were searched too)\n", config.LanguageName(sel.Language))
	}
	if len(sel.Considered) > 0 {
		fmt.Fprintf(env.Stdout, "rule: %s\n", sel.Considered[0].Threshold)
	}
	vectors := skills.UsesEmbeddings(sel.Mode)
	w := tabwriter.NewWriter(env.Stdout, 0, 2, 2, ' ', 0)
	head := "\nSKILL\tSCORE\tCOVERAGE\tOF BEST\tEFFICACY"
	if vectors {
		head += "\tSIMILARITY\tFUSED"
	}
	fmt.Fprintln(w, head+"\tMATCHED\tDECISION")
	for _, c := range sel.Considered {
		decision := "injected"
		if !c.Injected {
			decision = "left out: " + c.Reason
		}
		fmt.Fprintf(w, "%s\t%.2f\t%.2f\t%.2f\t×%.2f", c.Skill.Name, c.Score, c.Coverage, c.Relative, c.Efficacy)
		if vectors {
			fmt.Fprintf(w, "\t%.2f\t%.2f", c.Cosine, c.Fused)
		}
		fmt.Fprintf(w, "\t%s\t%s\n", skills.MatchedText(c), decision)
	}
	w.Flush()
}

func skillsImport(ctx context.Context, env *Env, db *store.DB, args []string) error {
	args, err := positional(env, "skills import", "DIR", 1, args)
	if err != nil {
		return err
	}
	rep, err := skills.ImportDir(ctx, db, args[0])
	if err != nil {
		return &exitError{code: 1, msg: err.Error()}
	}
	fmt.Fprintf(env.Stdout, "imported %s: %d added, %d updated, %d unchanged\n", args[0], len(rep.Added), len(rep.Updated), len(rep.Unchanged))
	for _, n := range rep.Notices {
		fmt.Fprintf(env.Stdout, "note: %s\n", n.Error())
	}
	for _, fe := range rep.Errors {
		fmt.Fprintf(env.Stderr, "skipped %s\n", fe.Error())
	}
	if len(rep.Errors) > 0 {
		return &exitError{code: 1, msg: fmt.Sprintf("%d files were not imported", len(rep.Errors))}
	}
	return nil
}

func skillsExport(ctx context.Context, env *Env, db *store.DB, args []string) error {
	args, err := positional(env, "skills export", "DIR", 1, args)
	if err != nil {
		return err
	}
	n, err := skills.ExportDir(ctx, db, args[0])
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "exported %d skills to %s\n", n, args[0])
	return nil
}

func skillsToggle(ctx context.Context, env *Env, db *store.DB, op string, args []string) error {
	args, err := positional(env, "skills "+op, "NAME", 1, args)
	if err != nil {
		return err
	}
	switch op {
	case "enable", "disable":
		err = db.SetSkillEnabled(ctx, args[0], op == "enable")
	case "delete":
		err = db.DeleteSkill(ctx, args[0])
	}
	if err != nil {
		return notFound(err)
	}
	fmt.Fprintf(env.Stdout, "%sd %s\n", strings.TrimSuffix(op, "e"), args[0])
	return nil
}

func skillsRevert(ctx context.Context, env *Env, db *store.DB, args []string) error {
	args, err := positional(env, "skills revert", "NAME VERSION", 2, args)
	if err != nil {
		return err
	}
	v, err := strconv.Atoi(args[1])
	if err != nil || v < 1 {
		return usageError("skills revert: VERSION must be a positive number, not %q", args[1])
	}
	s, err := db.RevertSkill(ctx, args[0], v)
	if err != nil {
		return notFound(err)
	}
	fmt.Fprintf(env.Stdout, "%s is now version %d (the content of version %d)\n", s.Name, s.Version, v)
	return nil
}

// positional parses a subcommand that takes n arguments and no flags, so
// that --help prints its usage instead of being taken for an argument
// (skills export --help once exported the library into a folder named
// "--help").
func positional(env *Env, name, usage string, n int, args []string) ([]string, error) {
	fs := newFlags(env, name, usage)
	if err := parse(fs, args); err != nil {
		return nil, err
	}
	if fs.NArg() != n {
		return nil, usageError("usage: metaclaw %s %s", name, usage)
	}
	return fs.Args(), nil
}
