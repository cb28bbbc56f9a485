package idle

import (
	"context"
	"fmt"
	"strings"
)

// candidate is one idle-time mechanism Detect may try: open returns a
// Source that has already answered one query, or why it could not.
type candidate struct {
	name string
	open func(ctx context.Context) (Source, error)
}

// firstWorking opens the candidates in order and returns the first that
// answers. When none does, the error names every mechanism tried and why
// it failed; errors.Is and errors.As see each of those causes.
func firstWorking(ctx context.Context, cands []candidate) (Source, error) {
	var failed []error
	for _, c := range cands {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("detect idle source: %w", err)
		}
		src, err := c.open(ctx)
		if err == nil {
			return src, nil
		}
		if !strings.HasPrefix(err.Error(), c.name+":") {
			err = fmt.Errorf("%s: %w", c.name, err)
		}
		failed = append(failed, err)
	}
	return nil, &detectError{tried: failed}
}

// errList is several errors on one line, separated by "; ", for log
// lines that errors.Join would break. errors.Is and errors.As see each.
type errList []error

// Error implements error.
func (l errList) Error() string {
	parts := make([]string, len(l))
	for i, err := range l {
		parts[i] = err.Error()
	}
	return strings.Join(parts, "; ")
}

// Unwrap returns the errors in the list.
func (l errList) Unwrap() []error { return l }

// detectError says that no idle-time mechanism answered, listing each
// one's failure on a single line.
type detectError struct {
	tried []error
}

// Error implements error.
func (e *detectError) Error() string {
	if len(e.tried) == 0 {
		return "detect idle source: no mechanism to try on this system"
	}
	return "detect idle source: none answered (" + errList(e.tried).Error() + ")"
}

// Unwrap returns the failure of every mechanism tried.
func (e *detectError) Unwrap() []error { return e.tried }
