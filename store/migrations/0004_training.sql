-- 0004: RL training. samples holds what the policy served (kind 'served',
-- one per turn answered by the policy) and the extra responses the trainer
-- drew for group-relative advantages (kind 'extra'); samples answering the
-- same prompt share group_id (a served sample's group is its own id).
-- Tokens are little-endian int32 BLOBs, log-probs little-endian float32.
-- A sample waits until a training step uses it ('trained', step_id set in
-- the same transaction that records the step as done), the skill
-- generation moves on ('stale'), or it cannot be trained ('skipped', with
-- the reason). training_runs is one training model's lifetime,
-- training_steps its optimizer steps, checkpoints the weights it saved.

CREATE TABLE training_runs (
    id           INTEGER PRIMARY KEY,
    model_id     TEXT NOT NULL DEFAULT '',
    base_model   TEXT NOT NULL,
    lora_rank    INTEGER NOT NULL,
    started_at   INTEGER NOT NULL,
    ended_at     INTEGER,
    resumed_from TEXT NOT NULL DEFAULT '', -- state checkpoint loaded at the start; '' = fresh
    status       TEXT NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'ended', 'failed')),
    error        TEXT NOT NULL DEFAULT ''
) STRICT;

CREATE TABLE training_steps (
    id           INTEGER PRIMARY KEY,
    run_id       INTEGER NOT NULL REFERENCES training_runs(id) ON DELETE CASCADE,
    step         INTEGER NOT NULL,          -- optimizer steps of the adapter's lineage, this one included
    started_at   INTEGER NOT NULL,
    ended_at     INTEGER,
    -- discarded: done, but the weights it produced were lost (the process
    -- died before a state checkpoint kept them); its samples wait again.
    status       TEXT NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'done', 'failed', 'discarded')),
    loss         REAL,
    metrics      TEXT NOT NULL DEFAULT '{}', -- JSON object: forward_backward and optim_step metrics
    reward_mean  REAL,
    reward_std   REAL,
    samples_used INTEGER NOT NULL DEFAULT 0,
    datums       INTEGER NOT NULL DEFAULT 0,
    duration_ms  INTEGER NOT NULL DEFAULT 0,
    sampler_path TEXT NOT NULL DEFAULT '',
    state_path   TEXT NOT NULL DEFAULT '',
    error        TEXT NOT NULL DEFAULT ''
) STRICT;

CREATE INDEX training_steps_run ON training_steps(run_id, step);

CREATE TABLE checkpoints (
    id         INTEGER PRIMARY KEY,
    kind       TEXT NOT NULL CHECK (kind IN ('sampler', 'state')),
    path       TEXT NOT NULL UNIQUE, -- tinker://<model_id>/(sampler_)weights/<name>
    step_id    INTEGER REFERENCES training_steps(id) ON DELETE SET NULL,
    base_model TEXT NOT NULL DEFAULT '',
    created_at INTEGER NOT NULL
) STRICT;

CREATE INDEX checkpoints_kind ON checkpoints(kind, id);

CREATE TABLE samples (
    id               INTEGER PRIMARY KEY,
    turn_id          INTEGER REFERENCES turns(id) ON DELETE SET NULL,
    session_id       TEXT NOT NULL DEFAULT '',
    group_id         INTEGER NOT NULL DEFAULT 0, -- the served sample's id
    kind             TEXT NOT NULL DEFAULT 'served' CHECK (kind IN ('served', 'extra')),
    prompt_tokens    BLOB NOT NULL,   -- little-endian int32
    sampled_tokens   BLOB NOT NULL,   -- little-endian int32
    sampled_logprobs BLOB NOT NULL,   -- little-endian float32, one per sampled token
    base_model       TEXT NOT NULL DEFAULT '',
    checkpoint       TEXT NOT NULL DEFAULT '', -- sampler path, or the base model name, that produced it
    skill_generation INTEGER NOT NULL DEFAULT 0,
    trainable        INTEGER NOT NULL DEFAULT 1, -- 0: served by the fallback upstream, kept but never trained
    reward           REAL,                       -- NULL until judged
    reward_source    TEXT NOT NULL DEFAULT '',   -- turn (the turn's judge score) or group (judged with its group)
    status           TEXT NOT NULL DEFAULT 'waiting' CHECK (status IN ('waiting', 'trained', 'stale', 'skipped')),
    reason           TEXT NOT NULL DEFAULT '',   -- why stale or skipped
    step_id          INTEGER REFERENCES training_steps(id) ON DELETE SET NULL,
    created_at       INTEGER NOT NULL
) STRICT;

CREATE INDEX samples_waiting ON samples(skill_generation, id) WHERE status = 'waiting' AND trainable = 1;
CREATE INDEX samples_group ON samples(group_id);
CREATE INDEX samples_turn ON samples(turn_id);
CREATE INDEX samples_step ON samples(step_id);
