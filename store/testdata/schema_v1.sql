-- 0001: settings, sessions and turns.

CREATE TABLE settings (
    key        TEXT PRIMARY KEY,
    value      TEXT NOT NULL,
    updated_at INTEGER NOT NULL -- unix milliseconds
) STRICT;

CREATE TABLE sessions (
    id           TEXT PRIMARY KEY,
    client       TEXT NOT NULL DEFAULT '',
    scope        TEXT NOT NULL DEFAULT 'default',
    started_at   INTEGER NOT NULL,
    last_turn_at INTEGER NOT NULL,
    ended_at     INTEGER,
    end_reason   TEXT NOT NULL DEFAULT '',
    turn_count   INTEGER NOT NULL DEFAULT 0
) STRICT;

CREATE INDEX sessions_last_turn ON sessions(last_turn_at);

CREATE TABLE turns (
    id                INTEGER PRIMARY KEY,
    session_id        TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    turn_num          INTEGER NOT NULL,
    turn_type         TEXT NOT NULL DEFAULT 'main' CHECK (turn_type IN ('main', 'side')),
    api               TEXT NOT NULL DEFAULT 'openai',
    model             TEXT NOT NULL DEFAULT '',
    stream            INTEGER NOT NULL DEFAULT 0,
    request           BLOB,
    response_text     TEXT NOT NULL DEFAULT '',
    reasoning         TEXT NOT NULL DEFAULT '',
    tool_calls        TEXT NOT NULL DEFAULT '',
    finish_reason     TEXT NOT NULL DEFAULT '',
    prompt_tokens     INTEGER NOT NULL DEFAULT 0,
    completion_tokens INTEGER NOT NULL DEFAULT 0,
    latency_ms        REAL NOT NULL DEFAULT 0,
    ttfb_ms           REAL NOT NULL DEFAULT 0,
    status            INTEGER NOT NULL DEFAULT 0,
    error             TEXT NOT NULL DEFAULT '',
    injected          TEXT NOT NULL DEFAULT '',
    created_at        INTEGER NOT NULL,
    UNIQUE (session_id, turn_num)
) STRICT;

CREATE INDEX turns_created ON turns(created_at);
