package usage

import (
	"context"

	"github.com/metaclaw/metaclaw/app/learner/llm"
)

// Completer is a model client as the judge, the evolver and memory
// extraction use it (*llm.Client).
type Completer interface {
	Complete(ctx context.Context, system, user string, opts llm.Options) (string, error)
}

// usageCompleter is a Completer that also tells the tokens (*llm.Client).
type usageCompleter interface {
	CompleteUsage(ctx context.Context, system, user string, opts llm.Options) (string, llm.Usage, error)
}

var _ usageCompleter = (*llm.Client)(nil)

// Metered returns c with every call checked against the budget and counted
// under component. A nil Meter returns c as it is.
func (m *Meter) Metered(component string, c Completer) Completer {
	if m == nil {
		return c
	}
	return metered{m: m, component: component, c: c}
}

type metered struct {
	m         *Meter
	component string
	c         Completer
}

func (mc metered) Complete(ctx context.Context, system, user string, opts llm.Options) (string, error) {
	if err := mc.m.Allow(ctx); err != nil {
		return "", err
	}
	var text string
	var u llm.Usage
	var err error
	if uc, ok := mc.c.(usageCompleter); ok {
		text, u, err = uc.CompleteUsage(ctx, system, user, opts)
	} else {
		text, err = mc.c.Complete(ctx, system, user, opts)
	}
	if ctx.Err() == nil || err == nil {
		mc.m.Record(ctx, mc.component, Call{Usage: u, Failed: err != nil})
	}
	return text, err
}
