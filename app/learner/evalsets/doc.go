// Package evalsets loads the labelled sets that measure retrieval: which
// skills fit an agent's turn, and which earlier conversation turns answer a
// question asked weeks later. It only reads files; the measuring lives with
// the code measured (skills, memory, the retrieval core).
//
// Nine sets live below this folder, written independently of each other:
//
//   - dev/: the set retrieval is developed and tuned on.
//   - dev2/: a second development set (skill turns only), written by someone
//     who read neither the retrieval code nor the other sets, so tuning on
//     both generalises; tuned on, never reported. Its README says how it was
//     written and labelled.
//   - dev3/: a third development set over dev2's library, mostly turns
//     that need no skill, written after round 5 without reading the
//     retrieval code or the held-out sets; tuned on.
//   - dev4/: a fourth development set over dev2's library (copied), most
//     of its requests not in English and half of them needing no skill,
//     written in round 12 without reading the retrieval code or the other
//     sets' turns; tuned on.
//   - heldout/: written before any tuning, by someone who did not read the
//     retrieval code, and never tuned on. Reported figures come from it, and
//     `make test` holds them as regression floors.
//   - heldout2/: a second held-out set (skill turns only), written after
//     round 5 was settled by someone who read neither the retrieval code nor
//     the other sets, and run once a round on the settled design; its README says
//     how. `make test` holds its figures as floors too.
//   - heldout3/: a third held-out set (skill turns only), written in round 7
//     before its first run, on the same rules, over a library of its own;
//     `make test` holds its figures as floors.
//   - heldout4/: a fourth held-out set (skill turns only), written in round
//     10 before its first run, on the same rules, over another person's
//     library; `make test` holds its figures as floors.
//   - heldout5/: a fifth held-out set (skill turns only), written in round
//     11 before its first run, on the same rules, over the library of a
//     person who writes mostly in Spanish and Italian; `make test` holds
//     its figures as floors.
//
// Each set has the same layout:
//
//	skills/<name>/SKILL.md        the skill library (reference layout)
//	turns.jsonl                   one SkillTurn per line
//	memory/conversations.jsonl    one Conversation (a session) per line
//	memory/questions.jsonl        one Question per line
//	asks.jsonl                    one SkillAsks per line: the skills' asks
//	asks_in.jsonl                 one SkillAsksIn per line: their asks in de, es, fr, it, pt
//
// Only evaluation code in tests and benchmarks imports this package.
package evalsets
