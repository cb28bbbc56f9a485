-- 0008: what MetaClaw did that a person should be able to see. A turn whose
-- history was cut to fit the context keeps the message and token counts
-- before and after the cut (0 and 0: nothing was cut). An evolution keeps
-- how many waiting training samples it made stale. learning_spend counts
-- the learner's model calls per local day and component (judge, evolver,
-- extraction, embeddings, trainer): calls, failed calls and tokens.

ALTER TABLE turns ADD COLUMN cut_messages_before INTEGER NOT NULL DEFAULT 0;
ALTER TABLE turns ADD COLUMN cut_messages_after  INTEGER NOT NULL DEFAULT 0;
ALTER TABLE turns ADD COLUMN cut_tokens_before   INTEGER NOT NULL DEFAULT 0;
ALTER TABLE turns ADD COLUMN cut_tokens_after    INTEGER NOT NULL DEFAULT 0;

ALTER TABLE evolutions ADD COLUMN stale_samples INTEGER NOT NULL DEFAULT 0;

CREATE TABLE learning_spend (
    day               TEXT NOT NULL, -- local date, YYYY-MM-DD
    component         TEXT NOT NULL,
    calls             INTEGER NOT NULL DEFAULT 0,
    failures          INTEGER NOT NULL DEFAULT 0,
    prompt_tokens     INTEGER NOT NULL DEFAULT 0,
    completion_tokens INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (day, component)
) STRICT;
