package idle

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// HIDIdleSource reads idle time from the IOHIDSystem service's
// HIDIdleTime property in the I/O Registry (nanoseconds since the last
// keyboard, mouse or trackpad event), with cgo; a build without cgo has
// the type but NewHIDIdleSource fails. It keeps the service handle open
// until Close.
type HIDIdleSource struct {
	mu  sync.RWMutex // guards svc
	svc uint32       // io_service_t; 0 after Close
}

var _ Source = (*HIDIdleSource)(nil)

// NewHIDIdleSource looks up IOHIDSystem and asks once for the idle time,
// so a source it returns is known to work.
func NewHIDIdleSource(ctx context.Context) (*HIDIdleSource, error) {
	svc, err := hidSystemService()
	if err != nil {
		return nil, fmt.Errorf("macos-hididletime: %w", err)
	}
	s := &HIDIdleSource{svc: svc}
	if _, err := s.Idle(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Name returns "macos-hididletime".
func (*HIDIdleSource) Name() string { return "macos-hididletime" }

// Idle returns HIDIdleTime, the time since the last HID event.
func (s *HIDIdleSource) Idle(ctx context.Context) (time.Duration, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("macos-hididletime: %w", err)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.svc == 0 {
		return 0, errors.New("macos-hididletime: source is closed")
	}
	ns, rc := hidIdleNanos(s.svc)
	switch rc {
	case 0:
	case 1:
		return 0, errors.New("macos-hididletime: IOHIDSystem has no HIDIdleTime property")
	default:
		return 0, errors.New("macos-hididletime: HIDIdleTime is not a 64-bit number")
	}
	if ns > 1<<63-1 {
		return 0, fmt.Errorf("macos-hididletime: HIDIdleTime %d ns is out of range", ns)
	}
	return time.Duration(ns), nil
}

// Close releases the IOHIDSystem handle. Idle fails after Close.
func (s *HIDIdleSource) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.svc != 0 {
		releaseService(s.svc)
		s.svc = 0
	}
	return nil
}

// Detect returns the HIDIdleTime source, or why it does not work. The
// caller may then fall back to NewScreenWatcher.
func Detect(ctx context.Context) (Source, error) {
	return firstWorking(ctx, []candidate{{"macos-hididletime", func(ctx context.Context) (Source, error) {
		return NewHIDIdleSource(ctx)
	}}})
}
