package idle

import (
	"context"
	"errors"
	"io/fs"
	"strings"
	"testing"
	"time"
)

// inputStubSource is a Source that answers a fixed idle time.
type inputStubSource struct{ name string }

func (s inputStubSource) Name() string { return s.name }
func (s inputStubSource) Idle(context.Context) (time.Duration, error) {
	return time.Second, nil
}
func (s inputStubSource) Close() error { return nil }

func TestFirstWorking(t *testing.T) {
	t.Parallel()
	failing := func(name string, err error) candidate {
		return candidate{name, func(context.Context) (Source, error) { return nil, err }}
	}
	working := func(name string) candidate {
		return candidate{name, func(context.Context) (Source, error) { return inputStubSource{name}, nil }}
	}
	errGone := errors.New("connect: no such file")

	src, err := firstWorking(context.Background(), []candidate{
		failing("a", errGone), working("b"), working("c"),
	})
	if err != nil || src.Name() != "b" {
		t.Fatalf("firstWorking = %v, %v; want source b", src, err)
	}

	_, err = firstWorking(context.Background(), []candidate{
		failing("x11-screensaver", errors.New("x11-screensaver: DISPLAY is not set")),
		failing("mutter-idlemonitor", fs.ErrNotExist),
		failing("kde", errGone),
	})
	want := "detect idle source: none answered (x11-screensaver: DISPLAY is not set; " +
		"mutter-idlemonitor: file does not exist; kde: connect: no such file)"
	if err == nil || err.Error() != want {
		t.Fatalf("error = %v\nwant    %s", err, want)
	}
	if !errors.Is(err, fs.ErrNotExist) || !errors.Is(err, errGone) {
		t.Fatalf("errors.Is does not see the causes in %v", err)
	}
	if strings.Contains(err.Error(), "\n") {
		t.Fatalf("error spans lines: %q", err)
	}
}

func TestFirstWorkingStopsOnCancel(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tried := false
	_, err := firstWorking(ctx, []candidate{{"a", func(context.Context) (Source, error) {
		tried = true
		return nil, errors.New("unreachable")
	}}})
	if !errors.Is(err, context.Canceled) || tried {
		t.Fatalf("err = %v, tried = %v; want context.Canceled without trying", err, tried)
	}
}

func TestTickElapsed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		now, last uint32
		want      time.Duration
	}{
		{"no wrap", 10_000, 4_000, 6 * time.Second},
		{"just now", 77, 77, 0},
		{"counter wrapped since the input", 1_500, 1<<32 - 500, 2 * time.Second},
		{"longest idle before the next wrap", 1<<32 - 1, 0, (1<<32 - 1) * time.Millisecond},
	}
	for _, tc := range tests {
		if got := tickElapsed(tc.now, tc.last); got != tc.want {
			t.Errorf("%s: tickElapsed(%d, %d) = %v, want %v", tc.name, tc.now, tc.last, got, tc.want)
		}
	}
}
