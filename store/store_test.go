package store

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func openTest(t *testing.T) *DB {
	t.Helper()
	db, err := Open(filepath.Join(t.TempDir(), "metaclaw.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// schema returns the normalised schema of a database: every object's SQL,
// sorted by type and name.
func schema(t *testing.T, db *sql.DB) []string {
	t.Helper()
	rows, err := db.Query("SELECT type, name, coalesce(sql, '') FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var typ, name, s string
		if err := rows.Scan(&typ, &name, &s); err != nil {
			t.Fatal(err)
		}
		out = append(out, typ+" "+name+": "+strings.Join(strings.Fields(s), " "))
	}
	return out
}

func TestMigrateFromFrozenV1(t *testing.T) {
	t.Parallel()
	frozen, err := os.ReadFile("testdata/schema_v1.sql")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "old.db")
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(string(frozen) + "; PRAGMA user_version = 1;"); err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`INSERT INTO settings VALUES('mode', 'rl', 1)`); err != nil {
		t.Fatal(err)
	}
	raw.Close()

	old, err := Open(path)
	if err != nil {
		t.Fatalf("migrate frozen v1: %v", err)
	}
	defer old.Close()
	fresh := openTest(t)
	if diff := cmp.Diff(schema(t, fresh.sql), schema(t, old.sql)); diff != "" {
		t.Errorf("migrated v1 schema differs from fresh (-fresh +migrated):\n%s", diff)
	}
	got, err := old.Settings(context.Background())
	if err != nil || got["mode"] != "rl" {
		t.Errorf("settings after migration = %v, %v; want mode=rl kept", got, err)
	}
	for _, db := range []*DB{old, fresh} {
		v, err := db.Version(context.Background())
		if err != nil || v != LatestVersion() {
			t.Errorf("version = %d, %v; want %d", v, err, LatestVersion())
		}
	}
}

func TestMigrateTwice(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	before := schema(t, db.sql)
	for i := 0; i < 2; i++ {
		if err := db.Migrate(context.Background()); err != nil {
			t.Fatalf("migration run %d: %v", i+2, err)
		}
	}
	if diff := cmp.Diff(before, schema(t, db.sql)); diff != "" {
		t.Errorf("re-running migrations changed the schema:\n%s", diff)
	}
	// Reopening the same file migrates again, also a no-op.
	db.Close()
	again, err := Open(db.Path())
	if err != nil {
		t.Fatal(err)
	}
	again.Close()
}

func TestRefusesNewerSchema(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	if _, err := db.sql.Exec("PRAGMA user_version = 999"); err != nil {
		t.Fatal(err)
	}
	err := db.Migrate(context.Background())
	if err == nil || !strings.Contains(err.Error(), "newer") {
		t.Fatalf("Migrate on a newer schema = %v, want a 'newer' error", err)
	}
}

func TestPragmasAndFileMode(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	var mode string
	var fk, busy int
	if err := db.sql.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode = %q, %v; want wal", mode, err)
	}
	if err := db.sql.QueryRow("PRAGMA foreign_keys").Scan(&fk); err != nil || fk != 1 {
		t.Errorf("foreign_keys = %d, %v; want 1", fk, err)
	}
	if err := db.sql.QueryRow("PRAGMA busy_timeout").Scan(&busy); err != nil || busy != int(BusyTimeout.Milliseconds()) {
		t.Errorf("busy_timeout = %d, %v", busy, err)
	}
	for _, p := range []string{db.Path(), db.Path() + "-wal"} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s mode = %v, want 0600", filepath.Base(p), fi.Mode().Perm())
		}
	}
}

func TestSettingsAtomic(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	ctx := context.Background()
	if err := db.UpdateSettings(ctx, map[string]string{"a": "1", "b": "2"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := db.UpdateSettings(ctx, map[string]string{"a": "3"}, []string{"b"}); err != nil {
		t.Fatal(err)
	}
	got, err := db.Settings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"a": "3"}, got); diff != "" {
		t.Error(diff)
	}
}

func TestRecordTurnsAndSessions(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	ctx := context.Background()
	t0 := time.UnixMilli(1_700_000_000_000)
	turns := []*Turn{
		{SessionID: "s1", Model: "m", ResponseText: "hello", Request: []byte(`{"a":1}`), CreatedAt: t0, Client: "cli", Scope: "work"},
		{SessionID: "s1", Type: TurnSide, ResponseText: "side", CreatedAt: t0.Add(time.Second)},
		{SessionID: "s2", ResponseText: "other", CreatedAt: t0.Add(2 * time.Second)},
	}
	if err := db.RecordTurns(ctx, turns); err != nil {
		t.Fatal(err)
	}
	if turns[0].TurnNum != 1 || turns[1].TurnNum != 2 || turns[2].TurnNum != 1 {
		t.Errorf("turn numbers = %d %d %d, want 1 2 1", turns[0].TurnNum, turns[1].TurnNum, turns[2].TurnNum)
	}
	got, err := db.SessionTurns(ctx, "s1")
	if err != nil || len(got) != 2 {
		t.Fatalf("SessionTurns = %d, %v", len(got), err)
	}
	if got[0].Type != TurnMain || got[1].Type != TurnSide || string(got[0].Request) != `{"a":1}` || !got[0].CreatedAt.Equal(t0) {
		t.Errorf("turns read back wrong: %+v", got)
	}
	s, err := db.Session(ctx, "s1")
	if err != nil || s.TurnCount != 2 || s.Scope != "work" || s.Client != "cli" || !s.LastTurnAt.Equal(t0.Add(time.Second)) {
		t.Errorf("session = %+v, %v", s, err)
	}
	idle, err := db.IdleSessions(ctx, t0.Add(1500*time.Millisecond))
	if err != nil || len(idle) != 1 || idle[0] != "s1" {
		t.Errorf("IdleSessions = %v, %v; want [s1]", idle, err)
	}
	if ok, err := db.EndSession(ctx, "s1", "idle", t0.Add(time.Hour)); !ok || err != nil {
		t.Errorf("EndSession = %v, %v", ok, err)
	}
	if ok, _ := db.EndSession(ctx, "s1", "idle", t0.Add(time.Hour)); ok {
		t.Error("ending an ended session reported a change")
	}
	c, err := db.CountTurns(ctx, t0.Add(time.Second))
	if err != nil || c != (Counts{Sessions: 2, OpenSessions: 1, Turns: 3, TurnsSince: 2}) {
		t.Errorf("CountTurns = %+v, %v", c, err)
	}
	if _, err := db.TurnByID(ctx, 9999); err == nil {
		t.Error("TurnByID(9999) found a turn")
	}
	// A bad turn type is refused by the schema and nothing of the batch lands.
	err = db.RecordTurns(ctx, []*Turn{{SessionID: "s3"}, {SessionID: "s3", Type: "weird"}})
	if err == nil {
		t.Fatal("turn type 'weird' accepted")
	}
	if _, err := db.Session(ctx, "s3"); err == nil {
		t.Error("a failed batch left its session behind")
	}
}

// TestRecordTurnsBatchMatchesOneByOne records the same interleaved turns of
// several sessions once as one batch and once one turn at a time: session
// rows, turn numbers and the order of turn ids must not differ.
func TestRecordTurnsBatchMatchesOneByOne(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t0 := time.UnixMilli(1_700_000_000_000)
	mk := func() []*Turn {
		return []*Turn{
			{SessionID: "a", CreatedAt: t0, Client: "cli-a", Scope: "work"},
			{SessionID: "b", CreatedAt: t0.Add(time.Second), Client: "cli-b"},
			{SessionID: "a", Type: TurnSide, CreatedAt: t0.Add(3 * time.Second)},
			{SessionID: "old", CreatedAt: t0.Add(2 * time.Second)}, // older than its neighbour
			{SessionID: "b", TurnNum: 40, CreatedAt: t0.Add(4 * time.Second)},
			{SessionID: "a", CreatedAt: t0.Add(5 * time.Second), Scope: "ignored"},
		}
	}
	record := func(db *DB, batches [][]*Turn) {
		// A session that already has turns and has ended: recording reopens it.
		prior := []*Turn{{SessionID: "old", CreatedAt: t0.Add(-time.Hour)}, {SessionID: "old", CreatedAt: t0.Add(-time.Minute)}}
		must(t, db.RecordTurns(ctx, prior))
		if _, err := db.EndSession(ctx, "old", "idle", t0); err != nil {
			t.Fatal(err)
		}
		for _, b := range batches {
			must(t, db.RecordTurns(ctx, b))
		}
	}
	batched, single := openTest(t), openTest(t)
	turns := mk()
	record(batched, [][]*Turn{turns})
	var oneByOne [][]*Turn
	for _, tr := range mk() {
		oneByOne = append(oneByOne, []*Turn{tr})
	}
	record(single, oneByOne)

	for i, tr := range turns {
		if want := oneByOne[i][0]; tr.TurnNum != want.TurnNum || tr.ID != want.ID {
			t.Errorf("turn %d: batch gave id %d number %d, one by one id %d number %d", i, tr.ID, tr.TurnNum, want.ID, want.TurnNum)
		}
	}
	if got := []int{turns[0].TurnNum, turns[2].TurnNum, turns[5].TurnNum, turns[1].TurnNum, turns[4].TurnNum, turns[3].TurnNum}; !slices.Equal(got, []int{1, 2, 3, 1, 40, 3}) {
		t.Errorf("turn numbers a,a,a,b,b,old = %v, want [1 2 3 1 40 3]", got)
	}
	for _, id := range []string{"a", "b", "old"} {
		got, err1 := batched.Session(ctx, id)
		want, err2 := single.Session(ctx, id)
		if err1 != nil || err2 != nil {
			t.Fatalf("session %s: %v, %v", id, err1, err2)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("session %s (-one by one +batch):\n%s", id, diff)
		}
	}
	if s, _ := batched.Session(ctx, "a"); s.TurnCount != 3 || s.Scope != "work" || !s.LastTurnAt.Equal(t0.Add(5*time.Second)) {
		t.Errorf("session a = %+v", s)
	}
	if s, _ := batched.Session(ctx, "old"); s.TurnCount != 3 || !s.EndedAt.IsZero() || !s.LastTurnAt.Equal(t0.Add(2*time.Second)) {
		t.Errorf("session old = %+v", s)
	}
}

// TestLateTurnKeepsSessionEnded: a turn of a session recorded after the
// session's closing turn ended it — its handler finished later, though it
// began before — leaves the session ended; a turn begun after the end
// opens it again.
func TestLateTurnKeepsSessionEnded(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	ctx := context.Background()
	t0 := time.UnixMilli(1_700_000_000_000)
	record := func(at time.Time) {
		t.Helper()
		if err := db.RecordTurns(ctx, []*Turn{{SessionID: "s", ResponseText: "x", CreatedAt: at}}); err != nil {
			t.Fatal(err)
		}
	}
	record(t0)
	record(t0.Add(2 * time.Second)) // the closing turn
	if ok, err := db.EndSession(ctx, "s", "done", t0.Add(3*time.Second)); !ok || err != nil {
		t.Fatalf("EndSession = %v, %v", ok, err)
	}
	record(t0.Add(time.Second)) // begun before the closing turn, recorded after it
	if s, err := db.Session(ctx, "s"); err != nil || s.EndedAt.IsZero() || s.EndReason != "done" || s.TurnCount != 3 {
		t.Errorf("after a late turn: session %+v, %v; want still ended (done), 3 turns", s, err)
	}
	record(t0.Add(time.Minute)) // the person comes back
	if s, err := db.Session(ctx, "s"); err != nil || !s.EndedAt.IsZero() || s.EndReason != "" {
		t.Errorf("after a new turn: session %+v, %v; want open again", s, err)
	}
}
