package memory

import (
	"context"

	"github.com/metaclaw/metaclaw/proxy/learning"
)

var _ learning.Injector = (*Service)(nil)

// Name is the service's name as an injector: "memory". The proxy places
// its text after the skills'.
func (s *Service) Name() string { return "memory" }

// Inject selects the memories of the request's scope for a main turn
// (Select, so that the ones injected count as used).
func (s *Service) Inject(ctx context.Context, req learning.InjectRequest) (learning.Injection, error) {
	sel, err := s.Select(ctx, req.Scope, req.Messages)
	if err != nil {
		return learning.Injection{}, err
	}
	return learning.Injection{Text: sel.Text, IDs: sel.IDs}, nil
}
