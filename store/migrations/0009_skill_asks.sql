-- 0009: the requests a skill version is the right help for ("asks"): read
-- from the SKILL.md front matter or written by the learner's model from the
-- skill's text. The skills index searches them as a field of their own, so a
-- request in the person's words (a symptom, an error, another language)
-- finds a skill whose text names the fix.

ALTER TABLE skill_versions ADD COLUMN asks TEXT NOT NULL DEFAULT '[]';
