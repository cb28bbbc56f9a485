package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/metaclaw/metaclaw/app/learner/skills"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
)

// runMigrate brings over what the Python MetaClaw kept in its data
// directory (~/.metaclaw): config.yaml, the skills folder and the memory
// store, and says what it could not bring. Running it again adds nothing.
//
// The layout is the reference's (aiming-lab/MetaClaw): metaclaw/config_store.py
// (config.yaml; skills.dir default ~/.metaclaw/skills; memory.dir default
// ~/.metaclaw/memory with store_path memory.db, policy_path policy.json,
// telemetry_path telemetry.jsonl), metaclaw/memory/store.py (the memories
// table), metaclaw/scheduler.py (scheduler_state.json), metaclaw/auth_store.py
// (auth-profiles.json), metaclaw/cli_session_store.py (cli-sessions.json),
// metaclaw/calendar_client.py (calendar_token.json).
func runMigrate(env *Env, args []string) error {
	fs := newFlags(env, "migrate", "[--from DIR]")
	from := fs.String("from", "", "the Python MetaClaw's data directory (default ~/.metaclaw)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return usageError("usage: metaclaw migrate [--from DIR]")
	}
	src := *from
	if src == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return err
		}
		src = filepath.Join(h, ".metaclaw")
	}
	if st, err := os.Stat(src); err != nil || !st.IsDir() {
		return &exitError{code: 1, msg: fmt.Sprintf("%s is not a directory: name the Python MetaClaw's data directory with --from", src)}
	}
	db, dir, err := openDB()
	if err != nil {
		return err
	}
	defer db.Close()
	m := &migration{env: env, db: db, src: src}
	fmt.Fprintf(env.Stdout, "Bringing over the Python MetaClaw's data from %s\n", src)
	ctx := context.Background()
	for _, step := range []func(context.Context) error{m.config, m.skills, m.memory, m.rest} {
		if err := step(ctx); err != nil {
			return err
		}
	}
	noteRestart(env, dir)
	if m.failed {
		return &exitError{code: 1, msg: "some of it could not be brought (listed above); the rest is in"}
	}
	return nil
}

// migration is one run of migrate.
type migration struct {
	env    *Env
	db     *store.DB
	src    string
	raw    map[string]string // the reference's config values, by its keys
	failed bool              // something that should map did not
}

func (m *migration) say(format string, args ...any) { fmt.Fprintf(m.env.Stdout, format+"\n", args...) }

// config imports config.yaml: every value that maps, each refused one
// named. The reference's default proxy.host 0.0.0.0 is not brought unless
// the file also sets proxy.api_key: MetaClaw stays on 127.0.0.1.
func (m *migration) config(ctx context.Context) error {
	p := filepath.Join(m.src, "config.yaml")
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		m.say("config.yaml: none in %s", m.src)
		return nil
	}
	if err != nil {
		return err
	}
	changes, refused, unknown, err := config.ParseYAMLPartial(data)
	if err != nil {
		m.failed = true
		m.say("config.yaml: not brought: %v", err)
		return nil
	}
	m.raw = changes
	var notes []string
	if h := changes["proxy.host"]; h != "" && h != "127.0.0.1" && h != "localhost" && changes["proxy.api_key"] == "" {
		delete(changes, "proxy.host")
		notes = append(notes, fmt.Sprintf("proxy.host %s: kept at 127.0.0.1 (the reference listens on every address with no key; set proxy.host and proxy.api_key to share the proxy)", h))
	}
	if _, err := config.Save(ctx, m.db, changes); err != nil {
		return err
	}
	m.say("config.yaml: %d settings brought", len(changes))
	for _, e := range refused {
		notes = append(notes, e.Error())
	}
	if len(unknown) > 0 {
		notes = append(notes, "no counterpart in MetaClaw: "+strings.Join(unknown, ", "))
	}
	for _, n := range notes {
		m.say("  not brought: %s", n)
	}
	return nil
}

// skills imports the skills folder named by skills.dir (default
// <from>/skills), every SKILL.md it holds.
func (m *migration) skills(ctx context.Context) error {
	dir := m.path("skills.dir", "skills")
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		m.say("skills: no folder at %s", dir)
		return nil
	}
	rep, err := skills.ImportFS(ctx, m.db, os.DirFS(dir), "migrate")
	if err != nil {
		return err
	}
	m.say("skills (%s): %d added, %d updated, %d already there", dir, len(rep.Added), len(rep.Updated), len(rep.Unchanged))
	for _, fe := range rep.Errors {
		m.failed = true
		m.say("  not brought: %s", fe.Error())
	}
	for _, n := range rep.Notices {
		m.say("  brought with a change: %s", n.Error())
	}
	return nil
}

// path is a directory the reference's config names (with ~ expanded), or
// its default inside the data directory.
func (m *migration) path(key, def string) string {
	if v := m.raw[key]; v != "" {
		if rest, ok := strings.CutPrefix(v, "~/"); ok {
			if h, err := os.UserHomeDir(); err == nil {
				return filepath.Join(h, rest)
			}
		}
		return v
	}
	return filepath.Join(m.src, def)
}

// rest names the reference's other files, which have no counterpart.
func (m *migration) rest(context.Context) error {
	mem := m.path("memory.dir", "memory")
	for _, f := range []struct{ path, why string }{
		{filepath.Join(m.src, "scheduler_state.json"), "MetaClaw keeps the scheduler's state in its database"},
		{filepath.Join(m.src, "calendar_token.json"), "connect the calendar again: metaclaw calendar connect"},
		{filepath.Join(m.src, "auth-profiles.json"), "MetaClaw keeps provider keys in its configuration (metaclaw setup)"},
		{filepath.Join(m.src, "cli-sessions.json"), "no counterpart"},
		{filepath.Join(mem, "policy.json"), "MetaClaw's memory retrieval has no tuned policy file"},
		{filepath.Join(mem, "telemetry.jsonl"), "no counterpart"},
	} {
		if _, err := os.Stat(f.path); err == nil {
			m.say("not brought: %s (%s)", f.path, f.why)
		}
	}
	return nil
}
