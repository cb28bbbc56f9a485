package app

import "context"

// pumpEvents hands every proxy event to the learning services until ctx
// ends.
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
			a.learn.Notify(ev)
		}
	}
}
