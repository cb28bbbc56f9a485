// Package jsontest compares JSON documents by value, for the wire
// packages' tests.
package jsontest

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Diff decodes want and got, failing t when either is not JSON, and returns
// cmp.Diff of their values ("" when equal).
func Diff(t testing.TB, want, got []byte) string {
	t.Helper()
	var vw, vg any
	if err := json.Unmarshal(want, &vw); err != nil {
		t.Fatalf("expected document is not JSON: %v\n%s", err, want)
	}
	if err := json.Unmarshal(got, &vg); err != nil {
		t.Fatalf("document is not JSON: %v\n%s", err, got)
	}
	return cmp.Diff(vw, vg)
}
