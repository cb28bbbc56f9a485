package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Skill is a skill at its current version.
type Skill struct {
	ID          int64
	Name        string
	Description string
	Category    string
	Tags        []string
	Body        string
	Version     int
	Enabled     bool
	Retired     bool
	Source      string // where the current version came from
	// Asks are requests the current version is the right help for, in the
	// words people use (SetSkillAsks); the index searches them.
	Asks []string
	// AsksIn are asks in other languages, by language code ("de": the
	// German ones; SetSkillAsksIn); the index searches them for requests
	// in a language other than English.
	AsksIn    map[string][]string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// SkillVersion is one stored version of a skill.
type SkillVersion struct {
	Version     int
	Description string
	Category    string
	Tags        []string
	Body        string
	Asks        []string
	Source      string
	SessionID   string
	TurnIDs     []int64
	Generation  int
	Note        string
	CreatedAt   time.Time
}

// SkillInput is the content of a new skill or a new version.
type SkillInput struct {
	Name, Description, Category string
	Tags                        []string
	Body                        string
	// Asks, when set, are the version's requests (a SKILL.md's asks:);
	// content equal to the current version's with other asks replaces
	// them in place instead of making a version.
	Asks []string
	// Provenance of this version.
	Source, SessionID, Note string
	TurnIDs                 []int64
	Generation              int
}

// PutSkill adds a skill, or a new version of it when its content differs
// from the current one. Identical content changes nothing (changed is
// false), except that a retired skill put again comes back (changed is
// true). A retired or disabled skill put with new content is enabled.
func (db *DB) PutSkill(ctx context.Context, in SkillInput) (s Skill, changed bool, err error) {
	err = db.inTx(ctx, func(tx *sql.Tx) error {
		changed, err = putSkill(ctx, tx, in)
		return err
	})
	db.skillsChanged()
	if err != nil {
		return Skill{}, false, err
	}
	s, err = db.Skill(ctx, in.Name)
	return s, changed, err
}

func (db *DB) inTx(ctx context.Context, f func(*sql.Tx) error) error {
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback()
	if err := f(tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// nextRev is the revision a change gives a skill's row (its updated_at,
// taking the change's time in milliseconds as its parameter): that time,
// or one more than the greatest revision of any skill when that is not
// less. Writers take the database's one write lock (BEGIN IMMEDIATE), so
// revisions grow in the order changes commit, whatever the clock does:
// a reader holding every skill up to revision R finds every later change
// with updated_at > R (SkillHeadsSince).
const nextRev = "max(?, (SELECT coalesce(max(updated_at), 0) + 1 FROM skills))"

func putSkill(ctx context.Context, tx *sql.Tx, in SkillInput) (bool, error) {
	now := nowMillis()
	var id int64
	var cur int
	err := tx.QueryRowContext(ctx, "SELECT id, current_version FROM skills WHERE name = ?", in.Name).Scan(&id, &cur)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		res, err := tx.ExecContext(ctx, "INSERT INTO skills(name, current_version, created_at, updated_at) VALUES(?, 1, ?, "+nextRev+")", in.Name, now, now)
		if err != nil {
			return false, fmt.Errorf("add skill %s: %w", in.Name, err)
		}
		id, _ = res.LastInsertId()
		return true, insertVersion(ctx, tx, id, 1, in, now)
	case err != nil:
		return false, fmt.Errorf("find skill %s: %w", in.Name, err)
	}
	same, asks, err := sameContent(ctx, tx, id, cur, in)
	if err != nil || same {
		if err != nil {
			return false, err
		}
		changed := false
		if in.Asks != nil && asks != jsonList(in.Asks) {
			if err := setAsks(ctx, tx, id, cur, in.Asks, now); err != nil {
				return false, err
			}
			changed = true
		}
		// A retired skill put again with the same content comes back.
		res, err := tx.ExecContext(ctx, "UPDATE skills SET enabled = 1, retired = 0, updated_at = "+nextRev+" WHERE id = ? AND retired = 1", now, id)
		if err != nil {
			return false, err
		}
		n, _ := res.RowsAffected()
		return changed || n > 0, nil
	}
	if _, err := tx.ExecContext(ctx, "UPDATE skills SET current_version = ?, updated_at = "+nextRev+", enabled = 1, retired = 0 WHERE id = ?", cur+1, now, id); err != nil {
		return false, fmt.Errorf("update skill %s: %w", in.Name, err)
	}
	return true, insertVersion(ctx, tx, id, cur+1, in, now)
}

// sameContent reports whether in has the content of the given version (its
// asks aside) and returns that version's asks (JSON).
func sameContent(ctx context.Context, tx *sql.Tx, id int64, version int, in SkillInput) (bool, string, error) {
	var desc, cat, tags, body, asks string
	err := tx.QueryRowContext(ctx, `SELECT description, category, tags, body, asks FROM skill_versions WHERE skill_id = ? AND version = ?`,
		id, version).Scan(&desc, &cat, &tags, &body, &asks)
	if err != nil {
		return false, "", fmt.Errorf("read skill version: %w", err)
	}
	return desc == in.Description && cat == in.Category && tags == jsonList(in.Tags) && body == in.Body, asks, nil
}

// setAsks replaces a version's asks; the skill's updated_at moves, so
// readers (SkillsStamp) reload it.
func setAsks(ctx context.Context, tx *sql.Tx, id int64, version int, asks []string, now int64) error {
	if _, err := tx.ExecContext(ctx, "UPDATE skill_versions SET asks = ? WHERE skill_id = ? AND version = ?",
		jsonList(asks), id, version); err != nil {
		return fmt.Errorf("set asks: %w", err)
	}
	return touchSkill(ctx, tx, id, now)
}

// touchSkill moves a skill's revision (updated_at) above every other's.
func touchSkill(ctx context.Context, tx *sql.Tx, id int64, now int64) error {
	if _, err := tx.ExecContext(ctx, "UPDATE skills SET updated_at = "+nextRev+" WHERE id = ?", now, id); err != nil {
		return fmt.Errorf("move the revision of skill %d: %w", id, err)
	}
	return nil
}

// changeCurrentVersion runs change, in a transaction, on the skill's
// version when it is the current one, and fails with ErrNotFound
// otherwise (the skill changed since); what names the change in errors.
func (db *DB) changeCurrentVersion(ctx context.Context, name string, version int, what string, change func(tx *sql.Tx, id int64) error) error {
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		var id int64
		err := tx.QueryRowContext(ctx, "SELECT id FROM skills WHERE name = ? AND current_version = ?", name, version).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("skill %s version %d: %w", name, version, ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		return change(tx, id)
	})
	if err == nil {
		db.skillsChanged()
	}
	return err
}

// SetSkillAsks replaces the asks of a skill's version. It fails with
// ErrNotFound unless that version is the current one (the skill changed
// since the asks were written for it).
func (db *DB) SetSkillAsks(ctx context.Context, name string, version int, asks []string) error {
	return db.changeCurrentVersion(ctx, name, version, "set asks", func(tx *sql.Tx, id int64) error {
		return setAsks(ctx, tx, id, version, asks, nowMillis())
	})
}

// SetSkillAsksIn replaces the asks of a skill's version in one language
// (lang, a language code such as "de"; no asks: none in it). It fails
// with ErrNotFound unless that version is the current one.
func (db *DB) SetSkillAsksIn(ctx context.Context, name string, version int, lang string, asks []string) error {
	if !validLang(lang) {
		return fmt.Errorf("set asks in %q: not a language code", lang)
	}
	what := "set asks in " + lang
	return db.changeCurrentVersion(ctx, name, version, what, func(tx *sql.Tx, id int64) error {
		var raw string
		if err := tx.QueryRowContext(ctx, "SELECT asks_in FROM skill_versions WHERE skill_id = ? AND version = ?", id, version).Scan(&raw); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		in := map[string][]string{}
		_ = json.Unmarshal([]byte(raw), &in)
		if len(asks) == 0 {
			delete(in, lang)
		} else {
			in[lang] = asks
		}
		b, _ := json.Marshal(in)
		if _, err := tx.ExecContext(ctx, "UPDATE skill_versions SET asks_in = ? WHERE skill_id = ? AND version = ?",
			string(b), id, version); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		return touchSkill(ctx, tx, id, nowMillis())
	})
}

// validLang reports whether lang looks like an ISO 639-1 code: two lower
// case letters.
func validLang(lang string) bool {
	return len(lang) == 2 && lang[0] >= 'a' && lang[0] <= 'z' && lang[1] >= 'a' && lang[1] <= 'z'
}

func insertVersion(ctx context.Context, tx *sql.Tx, id int64, version int, in SkillInput, now int64) error {
	turnIDs, _ := json.Marshal(nonNil(in.TurnIDs))
	_, err := tx.ExecContext(ctx, `INSERT INTO skill_versions(skill_id, version, description, category, tags, body, source,
		session_id, turn_ids, generation, note, created_at, asks) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		id, version, in.Description, in.Category, jsonList(in.Tags), in.Body, in.Source, in.SessionID, string(turnIDs),
		in.Generation, in.Note, now, jsonList(in.Asks))
	if err != nil {
		return fmt.Errorf("add skill version %s@%d: %w", in.Name, version, err)
	}
	return indexSkill(ctx, tx, id, in)
}

// indexSkill replaces the skill's row in the search index.
func indexSkill(ctx context.Context, tx *sql.Tx, id int64, in SkillInput) error {
	if _, err := tx.ExecContext(ctx, "DELETE FROM skills_fts WHERE rowid = ?", id); err != nil {
		return fmt.Errorf("index skill: %w", err)
	}
	name := strings.ReplaceAll(in.Name, "-", " ")
	_, err := tx.ExecContext(ctx, "INSERT INTO skills_fts(rowid, name, description, tags, body) VALUES(?,?,?,?,?)",
		id, name, in.Description, strings.Join(in.Tags, " "), in.Body)
	if err != nil {
		return fmt.Errorf("index skill: %w", err)
	}
	return nil
}

func jsonList(tags []string) string {
	b, _ := json.Marshal(nonNil(tags))
	return string(b)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

const skillCols = `s.id, s.name, v.description, v.category, v.tags, v.body, s.current_version, s.enabled, s.retired,
	v.source, s.created_at, s.updated_at, v.asks, v.asks_in`

const skillFrom = ` FROM skills s JOIN skill_versions v ON v.skill_id = s.id AND v.version = s.current_version`

func scanSkill(sc interface{ Scan(...any) error }) (Skill, error) {
	var s Skill
	var tags, asks, asksIn string
	var created, updated int64
	err := sc.Scan(&s.ID, &s.Name, &s.Description, &s.Category, &tags, &s.Body, &s.Version, &s.Enabled, &s.Retired,
		&s.Source, &created, &updated, &asks, &asksIn)
	_ = json.Unmarshal([]byte(tags), &s.Tags)
	if asks != "[]" {
		_ = json.Unmarshal([]byte(asks), &s.Asks)
	}
	if asksIn != "{}" {
		_ = json.Unmarshal([]byte(asksIn), &s.AsksIn)
	}
	s.CreatedAt, s.UpdatedAt = fromMillis(created), fromMillis(updated)
	return s, err
}

// Skill returns a skill at its current version.
func (db *DB) Skill(ctx context.Context, name string) (Skill, error) {
	s, err := scanSkill(db.sql.QueryRowContext(ctx, "SELECT "+skillCols+skillFrom+" WHERE s.name = ?", name))
	if errors.Is(err, sql.ErrNoRows) {
		return s, fmt.Errorf("skill %s: %w", name, ErrNotFound)
	}
	return s, err
}

// Skills lists skills by name; with all unset, only enabled ones.
func (db *DB) Skills(ctx context.Context, all bool) ([]Skill, error) {
	q := "SELECT " + skillCols + skillFrom
	if !all {
		q += " WHERE s.enabled = 1"
	}
	rows, err := db.sql.QueryContext(ctx, q+" ORDER BY s.name")
	if err != nil {
		return nil, fmt.Errorf("list skills: %w", err)
	}
	defer rows.Close()
	var out []Skill
	for rows.Next() {
		s, err := scanSkill(rows)
		if err != nil {
			return nil, fmt.Errorf("list skills: %w", err)
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// SkillHead is a skill's id, revision and state: every change of the
// skill (a version, its asks, being enabled, disabled or retired) moves
// its revision, the updated_at of its row, which each change makes greater
// than before.
type SkillHead struct {
	ID      int64
	Rev     int64
	Enabled bool
}

// SkillHeadsSince lists the heads of the skills whose revision is above
// since (0: every skill), disabled and retired ones too: a reader that
// keeps the revision of each skill it holds asks for the ones that moved
// and reads again only those (EnabledSkillsByID), not the whole library.
// Deleted skills are not listed; SkillsStamp's Deleted tells a reader
// that one went.
func (db *DB) SkillHeadsSince(ctx context.Context, since int64) ([]SkillHead, error) {
	rows, err := db.sql.QueryContext(ctx, "SELECT id, updated_at, enabled FROM skills WHERE updated_at > ?", since)
	if err != nil {
		return nil, fmt.Errorf("list skills: %w", err)
	}
	defer rows.Close()
	var out []SkillHead
	for rows.Next() {
		var h SkillHead
		if err := rows.Scan(&h.ID, &h.Rev, &h.Enabled); err != nil {
			return nil, fmt.Errorf("list skills: %w", err)
		}
		out = append(out, h)
	}
	return out, rows.Err()
}

// EnabledSkillsByID returns the enabled skills among ids.
func (db *DB) EnabledSkillsByID(ctx context.Context, ids []int64) ([]Skill, error) {
	var out []Skill
	for start := 0; start < len(ids); start += 500 {
		chunk := ids[start:min(start+500, len(ids))]
		args := make([]any, len(chunk))
		for i, id := range chunk {
			args[i] = id
		}
		q := "SELECT " + skillCols + skillFrom + " WHERE s.enabled = 1 AND s.id IN (?" + strings.Repeat(",?", len(chunk)-1) + ")"
		rows, err := db.sql.QueryContext(ctx, q, args...)
		if err != nil {
			return nil, fmt.Errorf("read skills: %w", err)
		}
		for rows.Next() {
			s, err := scanSkill(rows)
			if err != nil {
				rows.Close()
				return nil, fmt.Errorf("read skills: %w", err)
			}
			out = append(out, s)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("read skills: %w", err)
		}
	}
	return out, nil
}

// Rev is the skill's revision as SkillHead has it: its UpdatedAt in
// milliseconds.
func (s Skill) Rev() int64 {
	if s.UpdatedAt.IsZero() {
		return 0
	}
	return s.UpdatedAt.UnixMilli()
}

// SkillVersions returns every version of a skill, oldest first.
func (db *DB) SkillVersions(ctx context.Context, name string) ([]SkillVersion, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT v.version, v.description, v.category, v.tags, v.body, v.source,
		v.session_id, v.turn_ids, v.generation, v.note, v.created_at, v.asks
		FROM skill_versions v JOIN skills s ON s.id = v.skill_id WHERE s.name = ? ORDER BY v.version`, name)
	if err != nil {
		return nil, fmt.Errorf("skill versions: %w", err)
	}
	defer rows.Close()
	var out []SkillVersion
	for rows.Next() {
		var v SkillVersion
		var tags, turns, asks string
		var created int64
		if err := rows.Scan(&v.Version, &v.Description, &v.Category, &tags, &v.Body, &v.Source, &v.SessionID,
			&turns, &v.Generation, &v.Note, &created, &asks); err != nil {
			return nil, fmt.Errorf("skill versions: %w", err)
		}
		_ = json.Unmarshal([]byte(tags), &v.Tags)
		_ = json.Unmarshal([]byte(turns), &v.TurnIDs)
		if asks != "[]" {
			_ = json.Unmarshal([]byte(asks), &v.Asks)
		}
		v.CreatedAt = fromMillis(created)
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("skill %s: %w", name, ErrNotFound)
	}
	return out, nil
}

// SetSkillEnabled enables or disables a skill (re-enabling a retired one).
func (db *DB) SetSkillEnabled(ctx context.Context, name string, enabled bool) error {
	res, err := db.sql.ExecContext(ctx, "UPDATE skills SET enabled = ?, retired = 0, updated_at = "+nextRev+" WHERE name = ?", enabled, nowMillis(), name)
	db.skillsChanged()
	return affected(res, err, "skill "+name)
}

// DeleteSkill removes a skill, all its versions and its index entry.
func (db *DB) DeleteSkill(ctx context.Context, name string) error {
	defer db.skillsChanged()
	return db.inTx(ctx, func(tx *sql.Tx) error {
		var id int64
		if err := tx.QueryRowContext(ctx, "SELECT id FROM skills WHERE name = ?", name).Scan(&id); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("skill %s: %w", name, ErrNotFound)
			}
			return err
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM skills_fts WHERE rowid = ?", id); err != nil {
			return fmt.Errorf("delete skill: %w", err)
		}
		_, err := tx.ExecContext(ctx, "DELETE FROM skills WHERE id = ?", id)
		return err
	})
}

// RevertSkill makes a new version whose content is that of an earlier one.
func (db *DB) RevertSkill(ctx context.Context, name string, version int) (Skill, error) {
	versions, err := db.SkillVersions(ctx, name)
	if err != nil {
		return Skill{}, err
	}
	for _, v := range versions {
		if v.Version == version {
			s, _, err := db.PutSkill(ctx, SkillInput{Name: name, Description: v.Description, Category: v.Category,
				Tags: v.Tags, Body: v.Body, Asks: v.Asks, Source: "revert", Note: "revert to version " + strconv.Itoa(version)})
			return s, err
		}
	}
	return Skill{}, fmt.Errorf("skill %s version %d: %w", name, version, ErrNotFound)
}

func affected(res sql.Result, err error, what string) error {
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("%s: %w", what, ErrNotFound)
	}
	return nil
}

// SkillsEpoch changes after every skill change made through this handle.
func (db *DB) SkillsEpoch() int64 { return db.skillEpoch.Load() }

// SkillsChange returns a channel closed by the next change of skills made
// through this handle: a retriever refreshes its snapshot then, before the
// next turn asks for it.
func (db *DB) SkillsChange() <-chan struct{} {
	db.skillMu.Lock()
	defer db.skillMu.Unlock()
	if db.skillWake == nil {
		db.skillWake = make(chan struct{})
	}
	return db.skillWake
}

// skillsChanged moves the epoch and wakes SkillsChange's waiters.
func (db *DB) skillsChanged() {
	db.skillEpoch.Add(1)
	db.skillMu.Lock()
	defer db.skillMu.Unlock()
	if db.skillWake != nil {
		close(db.skillWake)
		db.skillWake = nil
	}
}
