//go:build !linux

package tray

import "log/slog"

// keepRegistered is Linux's (a StatusNotifierWatcher that starts later);
// elsewhere the icon needs no registration.
func keepRegistered(<-chan struct{}, *slog.Logger) {}
