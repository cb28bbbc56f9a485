-- 0010: following the skills cheaply. Every change of a skill moves its
-- row's updated_at (its revision) above every other's, so a reader holding
-- the library asks only for the rows whose revision passed the greatest it
-- holds (SkillHeadsSince), through this index. A deletion moves no
-- revision: it counts in meta's skills_deleted instead, and the stamp
-- (SkillsStamp) reads that count rather than counting the rows.

CREATE INDEX skills_updated_at ON skills(updated_at);

CREATE TRIGGER skills_deleted AFTER DELETE ON skills BEGIN
    INSERT INTO meta(key, value) VALUES ('skills_deleted', '1')
    ON CONFLICT(key) DO UPDATE SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT);
END;
