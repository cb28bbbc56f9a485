-- 0011: asks in the other languages the person writes in: a JSON object
-- from a language's code ("de", "es") to that language's asks, written by
-- the learner's model once the person has written in it (skills.ask_languages).
-- The skills index searches them only for a request in a language other
-- than English, so they change nothing for English requests.

ALTER TABLE skill_versions ADD COLUMN asks_in TEXT NOT NULL DEFAULT '{}';
