-- 0002: skills with every version kept, their search index, the embedding
-- cache, judge scores, the evolution log, and a small key/value table for
-- counters such as the skill generation.

CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) STRICT;

CREATE TABLE skills (
    id              INTEGER PRIMARY KEY,
    name            TEXT NOT NULL UNIQUE,
    enabled         INTEGER NOT NULL DEFAULT 1,
    retired         INTEGER NOT NULL DEFAULT 0,
    current_version INTEGER NOT NULL,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL
) STRICT;

CREATE TABLE skill_versions (
    skill_id    INTEGER NOT NULL REFERENCES skills(id) ON DELETE CASCADE,
    version     INTEGER NOT NULL,
    description TEXT NOT NULL,
    category    TEXT NOT NULL DEFAULT '',
    tags        TEXT NOT NULL DEFAULT '[]', -- JSON array
    body        TEXT NOT NULL,
    source      TEXT NOT NULL DEFAULT '',   -- starter, import, user, evolver, revert
    session_id  TEXT NOT NULL DEFAULT '',
    turn_ids    TEXT NOT NULL DEFAULT '[]', -- JSON array of turn ids
    generation  INTEGER NOT NULL DEFAULT 0,
    note        TEXT NOT NULL DEFAULT '',
    created_at  INTEGER NOT NULL,
    PRIMARY KEY (skill_id, version)
) STRICT;

-- The current version of every skill; rowid = skills.id.
CREATE VIRTUAL TABLE skills_fts USING fts5(name, description, tags, body, tokenize = 'porter unicode61');

CREATE TABLE embeddings (
    model      TEXT NOT NULL,
    hash       TEXT NOT NULL, -- sha256 of the text
    dim        INTEGER NOT NULL,
    vector     BLOB NOT NULL, -- little-endian float32
    created_at INTEGER NOT NULL,
    PRIMARY KEY (model, hash)
) STRICT;

CREATE TABLE scores (
    turn_id     INTEGER PRIMARY KEY REFERENCES turns(id) ON DELETE CASCADE,
    score       INTEGER NOT NULL CHECK (score IN (-1, 0, 1)),
    votes       TEXT NOT NULL,              -- JSON array of the votes that succeeded
    failed      INTEGER NOT NULL DEFAULT 0, -- votes that failed (not counted)
    judge_model TEXT NOT NULL DEFAULT '',
    evidence    TEXT NOT NULL DEFAULT '',   -- next_turn or session_end
    reasons     TEXT NOT NULL DEFAULT '[]', -- JSON array of the judge's short reasons
    created_at  INTEGER NOT NULL
) STRICT;

CREATE TABLE evolutions (
    id         INTEGER PRIMARY KEY,
    generation INTEGER NOT NULL,
    session_id TEXT NOT NULL DEFAULT '',
    status     TEXT NOT NULL, -- applied, rejected, empty
    ops        TEXT NOT NULL DEFAULT '[]',
    error      TEXT NOT NULL DEFAULT '',
    created_at INTEGER NOT NULL
) STRICT;
