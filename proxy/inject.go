package proxy

import (
	"context"
	"strings"
	"time"

	"github.com/metaclaw/metaclaw/proxy/learning"
)

// injected is the combined result of every injector for one turn.
type injected struct {
	text string
	ids  []string
}

// runInjectors calls each injector with the deadline and joins their text,
// cut to budget tokens (estimated at four characters a token) at a line
// boundary.
func runInjectors(ctx context.Context, injs []learning.Injector, req learning.InjectRequest, timeout time.Duration, budget int, onErr func(string, error)) injected {
	var out injected
	if len(injs) == 0 {
		return out
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var parts []string
	for _, inj := range injs {
		res, err := inj.Inject(ctx, req)
		if err != nil {
			onErr(inj.Name(), err)
			continue
		}
		if strings.TrimSpace(res.Text) == "" {
			continue
		}
		parts = append(parts, strings.TrimSpace(res.Text))
		out.ids = append(out.ids, res.IDs...)
	}
	out.text = cutToBudget(strings.Join(parts, "\n\n"), budget)
	return out
}

// cutToBudget shortens text to about budget tokens, at a line boundary.
func cutToBudget(text string, budget int) string {
	limit := budget * 4
	if budget <= 0 || len(text) <= limit {
		return text
	}
	cut := text[:limit]
	if i := strings.LastIndexByte(cut, '\n'); i > 0 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, "\n ")
}
