package cli

import (
	"context"
	"path/filepath"

	"github.com/metaclaw/metaclaw/app/instance"
	"github.com/metaclaw/metaclaw/app/learner"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
)

// agentWindow is the context window connect announces to an agent and the
// limit the proxy cuts at (config.Config.AgentWindow), with the trained
// model's context length the running (or last) MetaClaw in dir learned
// from the training service.
func agentWindow(dir string, cfg config.Config) (window, limit int) {
	return cfg.AgentWindow(policyContext(dir))
}

// policyContext reads the trained model's context length recorded in
// dir's database, 0 when unknown (or in skills_only, where it is unused).
func policyContext(dir string) int {
	if dir == "" {
		return 0
	}
	db, err := store.Open(filepath.Join(dir, instance.DBName))
	if err != nil {
		return 0
	}
	defer db.Close()
	return learner.PolicyContextLength(context.Background(), db)
}
