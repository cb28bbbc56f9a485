//go:build darwin && !cgo

package idle

import "errors"

// errNoCgo says why HIDIdleTime cannot be read: IOKit is reached only
// through cgo.
var errNoCgo = errors.New("reading HIDIdleTime needs a build with CGO_ENABLED=1")

// hidSystemService fails: this build has no cgo.
func hidSystemService() (uint32, error) { return 0, errNoCgo }

// hidIdleNanos is never reached without a service; it reports the
// property missing.
func hidIdleNanos(uint32) (ns uint64, rc int) { return 0, 1 }

// releaseService has nothing to release.
func releaseService(uint32) {}
