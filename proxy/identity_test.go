package proxy

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/metaclaw/metaclaw/proxy/learning"
)

// TestDeriveSessionStable holds derived session ids to the formula they
// were first stored with, so sessions recorded by earlier versions keep
// growing after an upgrade: SHA-256 of the client key, the system and
// developer texts joined, the first user text, each followed by a zero
// byte.
func TestDeriveSessionStable(t *testing.T) {
	conv := []learning.Message{
		{Role: "system", Text: "You are a coding agent."},
		{Role: "developer", Text: " Prefer small diffs."},
		{Role: "user", Text: "Fix the test."},
		{Role: "assistant", Text: "Done."},
		{Role: "user", Text: "Thanks."},
	}
	sum := sha256.Sum256([]byte("client\x00You are a coding agent. Prefer small diffs.\x00Fix the test.\x00"))
	if got, want := deriveSession("client", conv), "auto-"+hex.EncodeToString(sum[:8]); got != want {
		t.Errorf("deriveSession = %s, want %s", got, want)
	}
	sum = sha256.Sum256([]byte("client\x00\x00\x00"))
	if got, want := deriveSession("client", nil), "auto-"+hex.EncodeToString(sum[:8]); got != want {
		t.Errorf("deriveSession of nothing = %s, want %s", got, want)
	}
	if deriveSession("client", conv) != deriveSession("client", conv[:3]) {
		t.Error("a later turn of the same conversation got another id")
	}
}
