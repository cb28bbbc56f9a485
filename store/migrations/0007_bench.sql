-- 0007: benchmark reports. `metaclaw bench run` measures, arm by arm (no learning, skills,
-- skills and memory, the full pipeline), how the person's own model does on a MetaClaw-Bench
-- style benchmark; each run keeps its whole report here as JSON (the same document `--out`
-- writes, see bench.go), rewritten after every benchmark day, so the web page shows a run
-- while it goes on and after it ended.

CREATE TABLE bench_runs (
    id         TEXT PRIMARY KEY,
    benchmark  TEXT NOT NULL,
    status     TEXT NOT NULL CHECK (status IN ('running', 'done', 'stopped')),
    started_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    report     TEXT NOT NULL -- JSON: BenchReport
) STRICT;

CREATE INDEX bench_runs_updated ON bench_runs(updated_at);
