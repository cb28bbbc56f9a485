package app

import (
	"context"

	"github.com/metaclaw/metaclaw/proxy/learning"
)

// subscribe adds a receiver of the proxy's turn and session events. Each
// receiver must return at once (queue the work); call before Start.
func (a *App) subscribe(f func(learning.Event)) {
	a.subscribers = append(a.subscribers, f)
}

// pumpEvents hands every proxy event to every subscriber until ctx ends.
func (a *App) pumpEvents(ctx context.Context) error {
	events := a.proxy.Events()
	if events == nil {
		<-ctx.Done()
		return nil
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev := <-events:
			for _, f := range a.subscribers {
				f(ev)
			}
		}
	}
}
