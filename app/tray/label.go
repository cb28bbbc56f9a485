package tray

import (
	"io"
	stdlog "log"
	"log/slog"
	"strings"
	"sync"
)

// menuLabel is a menu item's text as the platform must be given it: on
// Linux the tray host reads an underscore as the mnemonic marker (so
// "skills_only" showed as "skillsonly"), and a literal one is doubled.
func menuLabel(s, goos string) string {
	if goos == "linux" {
		return strings.ReplaceAll(s, "_", "__")
	}
	return s
}

// captureSystrayLog sends what systray writes with the standard logger
// (its "systray error: ..." lines) to log, and returns the function that
// puts the standard logger back. While no tray host is there (noHost),
// systray's failure to register with one is expected: the icon registers
// when a host starts, and nothing is logged for it.
func captureSystrayLog(log *slog.Logger, noHost bool) func() {
	w, flags, prefix := stdlog.Writer(), stdlog.Flags(), stdlog.Prefix()
	stdlog.SetOutput(&systrayWriter{log: log, noHost: noHost})
	stdlog.SetFlags(0)
	stdlog.SetPrefix("")
	return func() {
		stdlog.SetOutput(w)
		stdlog.SetFlags(flags)
		stdlog.SetPrefix(prefix)
	}
}

// systrayWriter logs each line systray writes.
type systrayWriter struct {
	log    *slog.Logger
	noHost bool
	mu     sync.Mutex // serialises writes
}

var _ io.Writer = (*systrayWriter)(nil)

func (w *systrayWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, line := range strings.Split(strings.TrimSpace(string(p)), "\n") {
		msg := strings.TrimSpace(strings.TrimPrefix(line, "systray error:"))
		switch {
		case msg == "":
		case w.noHost && strings.Contains(msg, "failed to register"):
			w.log.Debug("tray: no tray host to register with yet", "detail", msg)
		default:
			w.log.Warn("tray: "+msg, "source", "systray")
		}
	}
	return len(p), nil
}
