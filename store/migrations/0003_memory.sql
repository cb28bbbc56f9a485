-- 0003: long-term memory. A memory is valid from valid_from until valid_to
-- (NULL while current); a newer memory that contradicts it ends it and names
-- itself in superseded_by, so history is kept but no longer injected. The
-- search index holds no copy of the text (external content) and deletes
-- securely, so that "forget" leaves nothing behind. memory_scopes counts
-- changes per scope (readers reload when it moves); memory_progress and
-- memory_pending record what extraction has done and what still awaits a
-- model pass.

CREATE TABLE memories (
    id            INTEGER PRIMARY KEY,
    scope         TEXT NOT NULL,
    type          TEXT NOT NULL CHECK (type IN ('preference', 'fact', 'project_state', 'episode', 'procedure')),
    topic         TEXT NOT NULL DEFAULT '',
    topic_key     TEXT NOT NULL DEFAULT '', -- normalised topic: same topic_key and scope = same subject
    content       TEXT NOT NULL,
    content_key   TEXT NOT NULL,            -- hash of the normalised content: exact duplicates
    importance    REAL NOT NULL DEFAULT 0.5 CHECK (importance BETWEEN 0 AND 1),
    confidence    REAL NOT NULL DEFAULT 0.7 CHECK (confidence BETWEEN 0 AND 1),
    pinned        INTEGER NOT NULL DEFAULT 0,
    source        TEXT NOT NULL DEFAULT '', -- model, rules, user, import, api
    session_id    TEXT NOT NULL DEFAULT '',
    turn_ids      TEXT NOT NULL DEFAULT '[]', -- JSON array of turn ids
    reinforced    INTEGER NOT NULL DEFAULT 1, -- times stated
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL,
    valid_from    INTEGER NOT NULL,
    valid_to      INTEGER,                  -- NULL while current
    end_reason    TEXT NOT NULL DEFAULT '', -- superseded, edited, decayed
    superseded_by INTEGER REFERENCES memories(id) ON DELETE SET NULL,
    last_used_at  INTEGER NOT NULL DEFAULT 0,
    use_count     INTEGER NOT NULL DEFAULT 0
) STRICT;

CREATE INDEX memories_current ON memories(scope, type) WHERE valid_to IS NULL;
CREATE INDEX memories_topic ON memories(scope, topic_key) WHERE valid_to IS NULL;
CREATE INDEX memories_content ON memories(scope, content_key) WHERE valid_to IS NULL;
CREATE INDEX memories_superseded_by ON memories(superseded_by);

CREATE VIRTUAL TABLE memories_fts USING fts5(content, topic, content = 'memories', content_rowid = 'id',
    tokenize = 'porter unicode61');
-- Deleting from the index removes the entries at once instead of adding
-- delete markers that keep the old terms until the next merge.
INSERT INTO memories_fts(memories_fts, rank) VALUES ('secure-delete', 1);

CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
    INSERT INTO memories_fts(rowid, content, topic) VALUES (new.id, new.content, new.topic);
END;

CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
    INSERT INTO memories_fts(memories_fts, rowid, content, topic) VALUES ('delete', old.id, old.content, old.topic);
END;

CREATE TRIGGER memories_fts_update AFTER UPDATE OF content, topic ON memories BEGIN
    INSERT INTO memories_fts(memories_fts, rowid, content, topic) VALUES ('delete', old.id, old.content, old.topic);
    INSERT INTO memories_fts(rowid, content, topic) VALUES (new.id, new.content, new.topic);
END;

CREATE TABLE memory_scopes (
    scope      TEXT PRIMARY KEY,
    rev        INTEGER NOT NULL DEFAULT 0,
    updated_at INTEGER NOT NULL
) STRICT;

CREATE TABLE memory_progress (
    session_id TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
    through    INTEGER NOT NULL DEFAULT 0, -- turn_num of the last turn extracted
    updated_at INTEGER NOT NULL
) STRICT;

CREATE TABLE memory_pending (
    turn_id    INTEGER PRIMARY KEY REFERENCES turns(id) ON DELETE CASCADE,
    session_id TEXT NOT NULL,
    attempts   INTEGER NOT NULL DEFAULT 0,
    next_at    INTEGER NOT NULL,
    created_at INTEGER NOT NULL
) STRICT;

CREATE INDEX memory_pending_next ON memory_pending(next_at);
