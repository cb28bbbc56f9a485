package app

import "github.com/metaclaw/metaclaw/app/learner/trainer"

// Trainer returns the trainer, nil when the mode does not train.
func (a *App) Trainer() *trainer.Trainer { return a.learn.Trainer }
