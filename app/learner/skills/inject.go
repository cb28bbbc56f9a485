package skills

import (
	"context"

	"github.com/metaclaw/metaclaw/proxy/learning"
)

var _ learning.Injector = (*Retriever)(nil)

// Name is the retriever's name as an injector: "skills".
func (r *Retriever) Name() string { return "skills" }

// Inject selects the skills for a main turn (Select) and returns their
// text and ids for the proxy to place in the system prompt.
func (r *Retriever) Inject(ctx context.Context, req learning.InjectRequest) (learning.Injection, error) {
	sel, err := r.Select(ctx, req.Messages)
	if err != nil {
		return learning.Injection{}, err
	}
	return learning.Injection{Text: sel.Text, IDs: sel.IDs}, nil
}
