// Package store owns MetaClaw's single SQLite database: opening it with the
// right pragmas, applying the embedded numbered migrations, and the row types
// and queries of every table (settings, sessions, turns, and those later
// features add). It is the bottom layer: it imports no other project package,
// and every other package may import it.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// BusyTimeout is how long a connection waits for a lock held by another
// connection or process before giving up with SQLITE_BUSY.
const BusyTimeout = 10 * time.Second

// DB is an open MetaClaw database. It is safe for concurrent use.
type DB struct {
	sql  *sql.DB
	path string
	// skillEpoch counts skill changes made through this handle, so
	// in-process readers (the retriever) notice them at once.
	skillEpoch atomic.Int64
	skillMu    sync.Mutex    // guards skillWake
	skillWake  chan struct{} // closed at the next skill change; nil: nobody waits

	stmtMu sync.Mutex
	stmts  map[string]*sql.Stmt // guarded by stmtMu: statements prepared once, reused on every connection

	parts partCache // request parts known to be stored (see request_parts.go)
}

// stmt returns the prepared statement for query, preparing it on first use.
// database/sql re-prepares it at most once per pooled connection, so hot
// writers (the turn recorder) stop paying SQLite's parser on every batch.
func (db *DB) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	db.stmtMu.Lock()
	defer db.stmtMu.Unlock()
	if st, ok := db.stmts[query]; ok {
		return st, nil
	}
	st, err := db.sql.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if db.stmts == nil {
		db.stmts = make(map[string]*sql.Stmt)
	}
	db.stmts[query] = st
	return st, nil
}

// Open opens (creating if needed) the database at path, sets WAL mode, the
// busy timeout and foreign keys on every connection, and applies pending
// migrations. The file and its directory are created private to the user
// (0600/0700) because the settings table holds API keys.
func Open(path string) (*DB, error) {
	if err := prepareFile(path); err != nil {
		return nil, err
	}
	sqldb, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	sqldb.SetMaxOpenConns(8)
	sqldb.SetMaxIdleConns(8)
	sqldb.SetConnMaxIdleTime(5 * time.Minute)
	db := &DB{sql: sqldb, path: path}
	if err := sqldb.Ping(); err != nil {
		sqldb.Close()
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	if err := db.Migrate(context.Background()); err != nil {
		sqldb.Close()
		return nil, err
	}
	return db, nil
}

// OpenMemory opens a private in-memory database with migrations applied; for
// tests and tools that need no file.
func OpenMemory() (*DB, error) {
	sqldb, err := sql.Open("sqlite", "file::memory:?_pragma=foreign_keys(1)&_txlock=immediate")
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	sqldb.SetMaxOpenConns(1) // each connection would be its own database
	db := &DB{sql: sqldb, path: ":memory:"}
	if err := db.Migrate(context.Background()); err != nil {
		sqldb.Close()
		return nil, err
	}
	return db, nil
}

func dsn(path string) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", BusyTimeout.Milliseconds()))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Set("_txlock", "immediate")
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}

// prepareFile makes sure the directory exists and the database file is
// created with mode 0600 before SQLite opens it; SQLite gives the -wal and
// -shm files the same mode as the database file.
func prepareFile(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("create data directory: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("create database file: %w", err)
	}
	f.Close()
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if err := os.Chmod(p, 0o600); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("restrict database file: %w", err)
		}
	}
	return nil
}

// Path returns the database file's path (":memory:" for OpenMemory).
func (db *DB) Path() string { return db.path }

// SQL returns the underlying handle, for packages that add their own tables.
func (db *DB) SQL() *sql.DB { return db.sql }

// Close checkpoints the WAL into the main file and closes every connection.
func (db *DB) Close() error {
	db.stmtMu.Lock()
	for _, st := range db.stmts {
		st.Close()
	}
	db.stmts = nil
	db.stmtMu.Unlock()
	if db.path != ":memory:" {
		// Best effort: a checkpoint leaves a compact file behind; the WAL is
		// durable on its own if this fails.
		_, _ = db.sql.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
	}
	return db.sql.Close()
}

// Checkpoint copies the WAL into the database file and truncates the WAL.
func (db *DB) Checkpoint(ctx context.Context) error {
	if _, err := db.sql.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}

func nowMillis() int64 { return time.Now().UnixMilli() }

func fromMillis(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms)
}
