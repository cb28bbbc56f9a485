-- 0005: requests stored as skeletons over shared parts (see request_parts.go).

CREATE TABLE request_parts (
    hash BLOB PRIMARY KEY, -- SHA-256 of body
    body BLOB NOT NULL
) STRICT;

-- 0: turns.request is the body; 1: a skeleton referring to request_parts.
ALTER TABLE turns ADD COLUMN request_form INTEGER NOT NULL DEFAULT 0 CHECK (request_form IN (0, 1));
