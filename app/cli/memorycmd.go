package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/metaclaw/metaclaw/app/learner"
	"github.com/metaclaw/metaclaw/app/learner/memory"
	"github.com/metaclaw/metaclaw/store"
)

const memoryUsage = `list [--scope S | --all-scopes] [--type T] [--history] [--limit N] | search TEXT [--scope S] [--history] |
                 show ID | add TEXT [--scope S] [--type T] [--topic K] [--importance X] [--pin] |
                 edit ID TEXT [--type T] [--topic K] | pin ID [--off] | unpin ID | forget ID... [--scope S] |
                 export [--scope S | --all-scopes] [--history] [-o FILE] | import FILE [--scope S] | scopes`

// memoryCmd is what every memory subcommand works with.
type memoryCmd struct {
	env   *Env
	db    *store.DB
	svc   *memory.Service
	scope string // memory.scope
}

func runMemory(env *Env, args []string) error {
	if len(args) == 0 {
		return usageError("usage: metaclaw memory %s", memoryUsage)
	}
	db, _, cfg, err := loadConfig()
	if err != nil {
		return err
	}
	defer db.Close()
	// The service a turn uses: its retrieval mode and, with embeddings,
	// the configured endpoint, so that search shows what a turn would get.
	svc := learner.BuildMemory(learner.Deps{DB: db, Config: cfg})
	defer svc.Retriever().Close()
	m := &memoryCmd{env: env, db: db, svc: svc, scope: cfg.Memory.Scope}
	sub, rest := args[0], args[1:]
	run, ok := map[string]func(context.Context, []string) error{
		"list": m.list, "search": m.search, "show": m.show, "add": m.add, "edit": m.edit, "pin": m.pin,
		"unpin": m.unpin, "forget": m.forget, "export": m.export, "import": m.importFile, "scopes": m.scopes,
	}[sub]
	if !ok {
		return usageError("memory: unknown subcommand %q; usage: metaclaw memory %s", sub, memoryUsage)
	}
	return run(context.Background(), rest)
}

// parseMixed parses flags that may come before, between or after the
// positional arguments, and returns the positional ones.
func parseMixed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := parse(fs, args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos, args = append(pos, args[0]), args[1:]
	}
}

func (m *memoryCmd) flags(name, args string) *flag.FlagSet {
	return newFlags(m.env, "memory "+name, args)
}

func (m *memoryCmd) list(ctx context.Context, args []string) error {
	fs := m.flags("list", "[--scope S | --all-scopes] [--type T] [--history] [--limit N]")
	scope := fs.String("scope", m.scope, "scope to list")
	all := fs.Bool("all-scopes", false, "list every scope")
	typ := fs.String("type", "", "only this type: "+strings.Join(store.MemoryTypes, ", "))
	history := fs.Bool("history", false, "include superseded, edited and faded memories")
	limit := fs.Int("limit", 100, "list at most this many")
	if _, err := parseMixed(fs, args); err != nil {
		return err
	}
	f := store.MemoryFilter{Scope: *scope, History: *history, Limit: *limit}
	if *all {
		f.Scope = ""
	}
	if *typ != "" {
		if f.Type = memory.NormalizeType(*typ); f.Type == "" {
			return usageError("memory list: --type must be one of %s", strings.Join(store.MemoryTypes, ", "))
		}
	}
	ms, err := m.db.Memories(ctx, f)
	if err != nil {
		return err
	}
	m.table(ms, *all, nil)
	fmt.Fprintf(m.env.Stdout, "\n%d memories\n", len(ms))
	return nil
}

// table prints memories, one a line; scores, when given, add a column.
func (m *memoryCmd) table(ms []store.Memory, withScope bool, scores []float64) {
	w := tabwriter.NewWriter(m.env.Stdout, 0, 2, 2, ' ', 0)
	head := "ID\tTYPE\tTOPIC\tIMP\tSTATE\tUPDATED\tCONTENT"
	if withScope {
		head = "SCOPE\t" + head
	}
	if scores != nil {
		head = "SCORE\t" + head
	}
	fmt.Fprintln(w, head)
	for i, mem := range ms {
		line := fmt.Sprintf("%d\t%s\t%s\t%.2f\t%s\t%s\t%s", mem.ID, mem.Type, short(mem.Topic, 24), mem.Importance,
			memState(mem), mem.UpdatedAt.Format("2006-01-02"), short(mem.Content, 72))
		if withScope {
			line = mem.Scope + "\t" + line
		}
		if scores != nil {
			line = fmt.Sprintf("%.2f\t%s", scores[i], line)
		}
		fmt.Fprintln(w, line)
	}
	w.Flush()
}

func memState(m store.Memory) string {
	switch {
	case !m.Current():
		return m.EndReason
	case m.Pinned:
		return "pinned"
	}
	return "current"
}

func short(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func (m *memoryCmd) search(ctx context.Context, args []string) error {
	fs := m.flags("search", "TEXT [--scope S] [--history] [--limit N]")
	scope := fs.String("scope", m.scope, "scope to search")
	history := fs.Bool("history", false, "full-text search including superseded memories")
	limit := fs.Int("limit", 10, "show at most this many")
	pos, err := parseMixed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usageError("usage: metaclaw memory search TEXT [--scope S] [--history]")
	}
	q := strings.Join(pos, " ")
	var ms []store.Memory
	var scores []float64
	if *history {
		hits, err := m.db.SearchMemories(ctx, store.MemorySearch{Scope: *scope, Query: q, History: true, Limit: *limit})
		if err != nil {
			return err
		}
		for _, h := range hits {
			ms, scores = append(ms, h.Memory), append(scores, h.Score)
		}
	} else {
		injected, err := m.injected(ctx, *scope, q)
		if err != nil {
			return err
		}
		hits, err := m.svc.Search(ctx, *scope, q, *limit)
		if err != nil {
			return err
		}
		for _, h := range hits {
			if !injected[h.Memory.ID] {
				ms, scores = append(ms, h.Memory), append(scores, h.Score)
			}
		}
		if len(ms) > 0 {
			fmt.Fprintln(m.env.Stdout, "\nOther matches (not injected):")
		}
	}
	if len(ms) == 0 {
		if *history {
			fmt.Fprintln(m.env.Stdout, "no memory matches")
		}
		return nil
	}
	m.table(ms, false, scores)
	return nil
}

// injected prints what a turn whose user says q would be given — pinned
// memories included, within memory.max_injected_units and _tokens, as the
// proxy injects — and returns their ids.
func (m *memoryCmd) injected(ctx context.Context, scope, q string) (map[int64]bool, error) {
	if err := m.svc.Retriever().Warm(ctx, scope); err != nil {
		fmt.Fprintf(m.env.Stderr, "note: %v; ranking without the missing vectors\n", err)
	}
	sel, err := m.svc.Retriever().Select(ctx, scope, []memory.Message{{Role: "user", Text: q}})
	if err != nil {
		return nil, err
	}
	ids := map[int64]bool{}
	if len(sel.Memories) == 0 {
		fmt.Fprintf(m.env.Stdout, "nothing would be injected into a turn that says this (scope %s)\n", scope)
		return ids, nil
	}
	fmt.Fprintf(m.env.Stdout, "Injected into a turn that says this (scope %s; pinned ones always, about %d tokens):\n", scope, sel.Tokens)
	var ms []store.Memory
	var scores []float64
	for _, h := range sel.Memories {
		ms, scores = append(ms, h.Memory), append(scores, h.Score)
		ids[h.Memory.ID] = true
	}
	m.table(ms, false, scores)
	return ids, nil
}

func (m *memoryCmd) show(ctx context.Context, args []string) error {
	id, err := oneID("show", args)
	if err != nil {
		return err
	}
	hist, err := m.db.MemoryHistory(ctx, id)
	if err != nil {
		return notFound(err)
	}
	for _, h := range hist {
		if h.ID == id {
			m.details(h)
		}
	}
	if len(hist) > 1 {
		fmt.Fprintln(m.env.Stdout, "\nhistory:")
		for _, h := range hist {
			mark := " "
			if h.ID == id {
				mark = "*"
			}
			fmt.Fprintf(m.env.Stdout, " %s %d  %s  %-10s %s\n", mark, h.ID, h.ValidFrom.Format("2006-01-02 15:04"), memState(h), h.Content)
		}
	}
	return nil
}

func (m *memoryCmd) details(h store.Memory) {
	w := tabwriter.NewWriter(m.env.Stdout, 0, 2, 2, ' ', 0)
	fmt.Fprintf(w, "id\t%d\nscope\t%s\ntype\t%s\ntopic\t%s\ncontent\t%s\n", h.ID, h.Scope, h.Type, h.Topic, h.Content)
	fmt.Fprintf(w, "importance\t%.2f\nconfidence\t%.2f\npinned\t%s\nstate\t%s\n", h.Importance, h.Confidence, yesNo(h.Pinned), memState(h))
	fmt.Fprintf(w, "source\t%s\nsession\t%s\nturns\t%v\nstated\t%d times\n", h.Source, h.SessionID, h.TurnIDs, h.Reinforced)
	fmt.Fprintf(w, "valid from\t%s\n", h.ValidFrom.Format(time.RFC3339))
	if !h.Current() {
		fmt.Fprintf(w, "valid to\t%s (%s, by %d)\n", h.ValidTo.Format(time.RFC3339), h.EndReason, h.SupersededBy)
	}
	fmt.Fprintf(w, "used\t%d times\n", h.UseCount)
	w.Flush()
}

func oneID(cmd string, args []string) (int64, error) {
	if len(args) != 1 {
		return 0, usageError("usage: metaclaw memory %s ID", cmd)
	}
	id, err := strconv.ParseInt(args[0], 10, 64)
	if err != nil || id <= 0 {
		return 0, usageError("memory %s: ID must be a positive number, not %q", cmd, args[0])
	}
	return id, nil
}

func (m *memoryCmd) add(ctx context.Context, args []string) error {
	fs := m.flags("add", "TEXT [--scope S] [--type T] [--topic K] [--importance X] [--pin]")
	scope := fs.String("scope", m.scope, "scope of the memory")
	typ := fs.String("type", store.MemoryFact, "type: "+strings.Join(store.MemoryTypes, ", "))
	topic := fs.String("topic", "", "what it is about; a later memory on the same topic supersedes it")
	importance := fs.Float64("importance", 0.7, "importance from 0 to 1")
	pin := fs.Bool("pin", false, "inject it on every turn")
	pos, err := parseMixed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usageError("usage: metaclaw memory add TEXT [--type T] [--topic K]")
	}
	ch, err := m.svc.Add(ctx, store.MemoryInput{Scope: *scope, Type: *typ, Topic: *topic, Content: strings.Join(pos, " "),
		Importance: *importance, Pinned: *pin})
	if err != nil {
		return userErr(err)
	}
	m.changed(ch)
	return nil
}

func (m *memoryCmd) changed(ch memory.Change) {
	fmt.Fprintf(m.env.Stdout, "%s memory %d (%s, scope %s)\n", ch.Outcome, ch.Memory.ID, ch.Memory.Type, ch.Memory.Scope)
	for _, id := range ch.Ended {
		fmt.Fprintf(m.env.Stdout, "memory %d is now history\n", id)
	}
}

func userErr(err error) error {
	if errors.Is(err, memory.ErrInvalid) || errors.Is(err, store.ErrNotFound) {
		return &exitError{code: 1, msg: err.Error()}
	}
	return err
}

func (m *memoryCmd) edit(ctx context.Context, args []string) error {
	fs := m.flags("edit", "ID TEXT [--type T] [--topic K]")
	typ := fs.String("type", "", "new type")
	topic := fs.String("topic", "", "new topic")
	pos, err := parseMixed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) < 2 {
		return usageError("usage: metaclaw memory edit ID TEXT [--type T] [--topic K]")
	}
	id, err := oneID("edit", pos[:1])
	if err != nil {
		return err
	}
	ch, err := m.svc.Edit(ctx, id, strings.Join(pos[1:], " "), *typ, *topic)
	if err != nil {
		return userErr(err)
	}
	m.changed(ch)
	return nil
}

func (m *memoryCmd) pin(ctx context.Context, args []string) error {
	fs := m.flags("pin", "ID [--off]")
	off := fs.Bool("off", false, "unpin")
	pos, err := parseMixed(fs, args)
	if err != nil {
		return err
	}
	return m.setPin(ctx, pos, !*off)
}

func (m *memoryCmd) unpin(ctx context.Context, args []string) error {
	return m.setPin(ctx, args, false)
}

func (m *memoryCmd) setPin(ctx context.Context, args []string, pinned bool) error {
	id, err := oneID("pin", args)
	if err != nil {
		return err
	}
	ch, err := m.svc.SetPinned(ctx, id, pinned)
	if err != nil {
		return userErr(err)
	}
	m.changed(ch)
	return nil
}

func (m *memoryCmd) forget(ctx context.Context, args []string) error {
	fs := m.flags("forget", "ID... [--scope S]")
	scope := fs.String("scope", "", "refuse ids outside this scope")
	pos, err := parseMixed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usageError("usage: metaclaw memory forget ID...")
	}
	var ids []int64
	for _, a := range pos {
		id, err := oneID("forget", []string{a})
		if err != nil {
			return err
		}
		ids = append(ids, id)
	}
	deleted, err := m.svc.Forget(ctx, *scope, ids)
	if err != nil {
		return userErr(err)
	}
	if err := m.svc.Compact(ctx); err != nil {
		return fmt.Errorf("memories deleted, but the database file still holds traces: %w", err)
	}
	fmt.Fprintf(m.env.Stdout, "forgot %d memories (%d earlier versions with them): %v\n", len(ids), len(deleted)-len(ids), deleted)
	return nil
}

func (m *memoryCmd) export(ctx context.Context, args []string) error {
	fs := m.flags("export", "[--scope S | --all-scopes] [--history] [-o FILE]")
	scope := fs.String("scope", m.scope, "scope to export")
	all := fs.Bool("all-scopes", false, "export every scope")
	history := fs.Bool("history", false, "include superseded and faded memories")
	out := fs.String("o", "", "write to FILE (mode 0600) instead of standard output")
	if _, err := parseMixed(fs, args); err != nil {
		return err
	}
	if *all {
		*scope = ""
	}
	w := m.env.Stdout
	if *out != "" {
		f, err := os.OpenFile(*out, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
		if err != nil {
			return fmt.Errorf("memory export: %w", err)
		}
		defer f.Close()
		w = f
	}
	n, err := memory.Export(ctx, m.db, w, *scope, *history, time.Now())
	if err != nil {
		return err
	}
	if *out != "" {
		fmt.Fprintf(m.env.Stdout, "exported %d memories to %s\n", n, *out)
	}
	return nil
}

func (m *memoryCmd) importFile(ctx context.Context, args []string) error {
	fs := m.flags("import", "FILE [--scope S]")
	scope := fs.String("scope", "", "import into this scope instead of each memory's own")
	pos, err := parseMixed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError("usage: metaclaw memory import FILE [--scope S]")
	}
	var r io.Reader = m.env.Stdin
	if pos[0] != "-" {
		f, err := os.Open(pos[0])
		if err != nil {
			return &exitError{code: 1, msg: err.Error()}
		}
		defer f.Close()
		r = f
	}
	rep, err := m.svc.Import(ctx, r, *scope)
	if err != nil {
		return &exitError{code: 1, msg: err.Error()}
	}
	fmt.Fprintf(m.env.Stdout, "imported %d memories (%d of them beside a memory on the same topic); skipped %d already known word for word, %d past versions\n",
		rep.Added, rep.SameTopic, rep.Duplicates, rep.History)
	return nil
}

func (m *memoryCmd) scopes(ctx context.Context, _ []string) error {
	ss, err := m.db.MemoryScopes(ctx)
	if err != nil {
		return err
	}
	w := tabwriter.NewWriter(m.env.Stdout, 0, 2, 2, ' ', 0)
	fmt.Fprintln(w, "SCOPE\tCURRENT\tWITH HISTORY\tLAST CHANGE")
	for _, s := range ss {
		fmt.Fprintf(w, "%s\t%d\t%d\t%s\n", s.Scope, s.Current, s.All, s.LastChangedAt.Format("2006-01-02 15:04"))
	}
	w.Flush()
	fmt.Fprintf(m.env.Stdout, "\ndefault scope (memory.scope): %s\n", m.scope)
	return nil
}
