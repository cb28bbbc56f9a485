package app

import (
	"github.com/metaclaw/metaclaw/app/learner"
	"github.com/metaclaw/metaclaw/app/learner/policy"
	"github.com/metaclaw/metaclaw/proxy"
)

var (
	_ proxy.Policy        = (*learner.Policy)(nil)
	_ proxy.PolicyContext = (*learner.Policy)(nil)
)

// proxyPolicy is the trained policy for the proxy: nil (not a typed nil,
// which would look set) unless the mode trains and its server was made.
func (a *App) proxyPolicy() proxy.Policy {
	if a.learn.Policy == nil {
		return nil
	}
	return a.learn.Policy
}

// Policy returns the trained policy's server, nil in skills_only.
func (a *App) Policy() *policy.Server {
	if a.learn.Policy == nil {
		return nil
	}
	return a.learn.Policy.Server
}
