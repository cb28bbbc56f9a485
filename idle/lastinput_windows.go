package idle

import (
	"context"
	"fmt"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

var (
	user32               = windows.NewLazySystemDLL("user32.dll")
	kernel32             = windows.NewLazySystemDLL("kernel32.dll")
	procGetLastInputInfo = user32.NewProc("GetLastInputInfo")
	procGetTickCount     = kernel32.NewProc("GetTickCount")
)

// lastInputInfo is LASTINPUTINFO: the struct size, then the tick count
// (ms since boot, 32 bits) of the last input event in this session.
type lastInputInfo struct {
	cbSize uint32
	dwTime uint32
}

// LastInputSource reads idle time with GetLastInputInfo and GetTickCount
// from user32/kernel32, without cgo. It sees input of the interactive
// session the process runs in; it holds no resources and is safe for
// concurrent use.
type LastInputSource struct{}

var _ Source = (*LastInputSource)(nil)

// NewLastInputSource loads the two functions and asks once for the idle
// time, so a source it returns is known to work.
func NewLastInputSource(ctx context.Context) (*LastInputSource, error) {
	for _, p := range []*windows.LazyProc{procGetLastInputInfo, procGetTickCount} {
		if err := p.Find(); err != nil {
			return nil, fmt.Errorf("windows-getlastinputinfo: load %s: %w", p.Name, err)
		}
	}
	s := &LastInputSource{}
	if _, err := s.Idle(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// Name returns "windows-getlastinputinfo".
func (*LastInputSource) Name() string { return "windows-getlastinputinfo" }

// Idle returns GetTickCount minus the tick count of the last input,
// correct across the counter's wrap every 49.7 days.
func (*LastInputSource) Idle(ctx context.Context) (time.Duration, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("windows-getlastinputinfo: %w", err)
	}
	// The last input first, then the clock: now is never before it.
	info := lastInputInfo{cbSize: uint32(unsafe.Sizeof(lastInputInfo{}))}
	r, _, err := procGetLastInputInfo.Call(uintptr(unsafe.Pointer(&info)))
	if r == 0 {
		return 0, fmt.Errorf("windows-getlastinputinfo: GetLastInputInfo: %w", err)
	}
	now, _, _ := procGetTickCount.Call()
	return tickElapsed(uint32(now), info.dwTime), nil
}

// Close does nothing: the source holds no resources.
func (*LastInputSource) Close() error { return nil }

// Detect returns the GetLastInputInfo source, or why it does not work.
// The caller may then fall back to NewScreenWatcher.
func Detect(ctx context.Context) (Source, error) {
	return firstWorking(ctx, []candidate{{"windows-getlastinputinfo", func(ctx context.Context) (Source, error) {
		return NewLastInputSource(ctx)
	}}})
}
