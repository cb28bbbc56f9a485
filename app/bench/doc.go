// Package bench runs `metaclaw bench`: it measures, on a benchmark in
// MetaClaw-Bench's layout that the person points at, whether MetaClaw's
// learning helps their own model. Each arm — base (no MetaClaw), skills,
// skills+memory, full — gets a fresh data directory and plays the same
// days in order; the MetaClaw arms carry what they learnt from one day to
// the next only through a MetaClaw instance (app.App) in that mode. The
// rounds are built and scored as the reference harness builds and scores
// them, and the result is a store.BenchReport: per arm, day and preference
// arc, with what each arm spent and ended with, and the differences
// between arms with a confidence interval.
//
// It sits beside app/cli (which parses the command line and calls Run) and
// imports app, the learner's packages, proxy/* and store.
//
// What this package takes from the reference (aiming-lab/MetaClaw, read,
// not copied; nothing of it ships or is downloaded: the person points at
// the folder):
//
//   - Layout: benchmark/data/<name>/all_tests.json names the benchmark, its
//     eval_dir, workspace_src and openclaw_state_dir (paths relative to the
//     project root or "${METACLAW_ROOT}/…") and lists the tests — one per day
//     — with id, agent, session, eval, arc and preference_tags
//     (benchmark/data/metaclaw-bench/all_tests.json). Each day's
//     eval/<eval>/questions.json is one group (or a list of groups) of
//     ordered rounds {id, type, question, eval, feedback, update}
//     (benchmark/src/infer/query_reader.py). The session seed is the
//     OpenClaw transcript openclaw_state/agents/<agent>/sessions/<session>.jsonl
//     (one user and one assistant message in every day of the reference's
//     data); eval/scripts holds the checker scripts.
//   - Workspace: a day gets a copy of workspace_src's root files and
//     non-dayNN folders plus its own dayNN folder only, with eval/scripts
//     copied to scripts/ (_copy_workspace_for_test and _copy_eval_scripts
//     in benchmark/src/infer/infer_cmd.py).
//   - Rounds: a round's message is its question, prefixed with
//     "[Previous Feedback] <feedback>\n\n" when the round before gave
//     feedback; after a group's last round the feedback alone is sent as a
//     message of its own (_run_group in infer_cmd.py, with_feedback and
//     standalone_feedback in benchmark/src/infer/prompts.py). Feedback
//     texts: for multi_choice, feedback.correct on an exact match, else one
//     line per missed option and per wrongly selected option from
//     feedback.options and a reminder, or a format note when the answer
//     had no \bbox{}; for file_check, feedback.correct or
//     feedback.incorrect plus the reminder (_build_feedback_text). The
//     round's workspace updates run before it (_execute_update).
//   - Scoring: multi_choice reads the letters of the first \bbox{…} or
//     \boxed{…} in the answer and scores 1 − (FP+FN)/n_options, 0 with no
//     such box (benchmark/src/scoring/scoring_cmd.py:
//     _extract_bbox_answer, calculate_multichoice_metrics); file_check
//     runs eval.command with sh in the workspace, passing when the exit
//     code is eval.expect_exit (default 0) and, when given,
//     eval.expect_stdout is in the output (a regular expression with
//     expect_stdout_regex), within eval.timeout seconds (default 30)
//     (_run_file_check). Accuracy is the mean round score
//     (benchmark/src/report/report_cmd.py).
//   - State between days: days run one at a time, in order; after each
//     day but the last, memory is ingested (POST /v1/memory/ingest) and in
//     RL runs a training step is triggered (_run_one_all_tests;
//     benchmark/scripts/config/*.yaml for each mode's settings).
package bench
