//go:build !linux && !windows && !darwin

package idle

import (
	"context"
	"errors"
	"runtime"
)

// Detect reports that this OS has no keyboard/mouse idle-time mechanism
// here: only Linux, Windows and macOS have one. The caller may fall back
// to NewScreenWatcher.
func Detect(ctx context.Context) (Source, error) {
	return nil, errors.New("detect idle source: no keyboard/mouse idle-time mechanism on " + runtime.GOOS)
}
