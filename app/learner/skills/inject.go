package skills

import (
	"context"

	"github.com/metaclaw/metaclaw/proxy/learning"
)

var _ learning.Injector = (*Retriever)(nil)

// Name is the retriever's name as an injector: "skills".
func (r *Retriever) Name() string { return "skills" }

// Inject selects the skills for a main turn (Select) and returns their
// text and ids for the proxy to place in the system prompt. A request
// that ends with the person's words (not a tool loop's next step) counts
// towards the languages the person writes in (store.LanguagesSeen).
func (r *Retriever) Inject(ctx context.Context, req learning.InjectRequest) (learning.Injection, error) {
	sel, err := r.Select(ctx, req.Messages)
	if err != nil {
		return learning.Injection{}, err
	}
	if n := len(req.Messages); n > 0 && req.Messages[n-1].Role == "user" {
		r.langs.note(sel.Language)
	}
	return learning.Injection{Text: sel.Text, IDs: sel.IDs}, nil
}
