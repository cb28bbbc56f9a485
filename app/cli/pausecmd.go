package cli

import (
	"context"
	"fmt"

	"github.com/metaclaw/metaclaw/app/learner"
)

// runPause and runResume pause and resume learning (judging, evolution,
// memory extraction, training); the proxy keeps serving. A running
// MetaClaw notices within two seconds.
func runPause(env *Env, args []string) error  { return setPaused(env, args, true) }
func runResume(env *Env, args []string) error { return setPaused(env, args, false) }

func setPaused(env *Env, args []string, paused bool) error {
	if len(args) > 0 {
		return usageError("pause and resume take no arguments")
	}
	db, _, err := openDB()
	if err != nil {
		return err
	}
	defer db.Close()
	v := ""
	if paused {
		v = "1"
	}
	if err := db.SetMeta(context.Background(), learner.MetaLearningPaused, v); err != nil {
		return err
	}
	if paused {
		fmt.Fprintln(env.Stdout, "learning paused: the proxy keeps serving; nothing is judged, evolved, extracted or trained")
	} else {
		fmt.Fprintln(env.Stdout, "learning resumed")
	}
	return nil
}
