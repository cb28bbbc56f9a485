package idle

import (
	"context"
	"os"
)

// Detect returns the first keyboard/mouse idle-time mechanism of this
// desktop that answers a query. On a Wayland session (WAYLAND_DISPLAY set
// or XDG_SESSION_TYPE=wayland) it tries Mutter's IdleMonitor, then
// org.freedesktop.ScreenSaver, then X11, whose XWayland idle time misses
// input to Wayland windows. Otherwise it tries X11 first, then the two
// D-Bus services. When none answers, the error lists each one and why it
// failed; the caller may then fall back to NewScreenWatcher.
func Detect(ctx context.Context) (Source, error) {
	return firstWorking(ctx, linuxCandidates(isWayland()))
}

// isWayland reports whether this process runs in a Wayland session.
func isWayland() bool {
	return os.Getenv("WAYLAND_DISPLAY") != "" || os.Getenv("XDG_SESSION_TYPE") == "wayland"
}

// linuxCandidates lists the mechanisms in the order Detect tries them.
func linuxCandidates(wayland bool) []candidate {
	x11 := candidate{"x11-screensaver", func(ctx context.Context) (Source, error) {
		return NewX11Source(ctx, "")
	}}
	mutter := candidate{"mutter-idlemonitor", func(ctx context.Context) (Source, error) {
		return NewMutterSource(ctx, "")
	}}
	kde := candidate{"freedesktop-screensaver", func(ctx context.Context) (Source, error) {
		return NewFreedesktopSource(ctx, "")
	}}
	if wayland {
		return []candidate{mutter, kde, x11}
	}
	return []candidate{x11, mutter, kde}
}
