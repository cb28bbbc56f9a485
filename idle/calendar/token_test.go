package calendar_test

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/metaclaw/metaclaw/idle/calendar"
)

func TestTokenFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "calendar-token.json")
	if _, err := calendar.LoadToken(path); !errors.Is(err, calendar.ErrNotConnected) {
		t.Fatalf("LoadToken of a missing file: %v", err)
	}
	want := &oauth2.Token{AccessToken: "a", RefreshToken: "r", TokenType: "Bearer", Expiry: time.Unix(2e9, 0).UTC()}
	if err := calendar.SaveToken(path, want); err != nil {
		t.Fatal(err)
	}
	assertMode0600(t, path)
	if runtime.GOOS != "windows" {
		if err := os.Chmod(path, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := calendar.LoadToken(path)
	if err != nil {
		t.Fatal(err)
	}
	assertMode0600(t, path) // narrowed on read
	if got.AccessToken != want.AccessToken || got.RefreshToken != want.RefreshToken || !got.Expiry.Equal(want.Expiry) {
		t.Errorf("round trip: got %+v", got)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries, want only the token (no temporary files)", len(entries))
	}
	if err := calendar.DeleteToken(path); err != nil {
		t.Fatal(err)
	}
	if err := calendar.DeleteToken(path); err != nil {
		t.Errorf("second delete: %v", err)
	}
}

// When Google rejects an access token that has not expired by our clock,
// the client refreshes, retries once, and writes the new token back.
func TestRefreshOn401(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "")
	e.g.SetBusy("primary")
	c := e.client()
	first := e.connect(c)
	e.g.ExpireAccessTokens()
	from := e.clock.Now()
	if _, err := c.Fetch(t.Context(), from, from.Add(time.Hour)); err != nil {
		t.Fatalf("Fetch after the server expired the token: %v", err)
	}
	st := e.g.Stats()
	if st.Unauthorized != 1 || st.Refreshes != 1 || st.FreeBusyQueries != 1 {
		t.Errorf("stats = %+v, want one 401, one refresh, one answered query", st)
	}
	stored := e.fileToken()
	if stored.AccessToken == first.AccessToken || !e.g.Live(stored.AccessToken) {
		t.Error("token file does not hold the refreshed access token")
	}
	if stored.RefreshToken != first.RefreshToken {
		t.Error("refresh token lost when the refreshed token was saved")
	}
	assertMode0600(t, e.cfg.TokenPath)
}

// A token expired by the injected clock is refreshed before the call.
func TestRefreshOnExpiry(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "")
	e.g.SetBusy("primary")
	c := e.client()
	e.connect(c)
	e.clock.Advance(2 * time.Hour)
	from := e.clock.Now()
	if _, err := c.Fetch(t.Context(), from, from.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if st := e.g.Stats(); st.Unauthorized != 0 || st.Refreshes != 1 {
		t.Errorf("stats = %+v, want a refresh before the call and no 401", st)
	}
}

func TestRevokedGrantNeedsReconnect(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "")
	e.g.SetBusy("primary")
	c := e.client()
	e.connect(c)
	e.g.RevokeAll()
	from := e.clock.Now()
	_, err := c.Fetch(t.Context(), from, from.Add(time.Hour))
	if !errors.Is(err, calendar.ErrReconnectNeeded) {
		t.Fatalf("Fetch after revocation: %v, want ErrReconnectNeeded", err)
	}
}

func TestDisconnect(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "")
	e.g.SetBusy("primary")
	c := e.client()
	tok := e.connect(c)
	if err := c.Disconnect(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !e.g.Revoked(tok.RefreshToken) || e.g.Live(tok.AccessToken) {
		t.Error("grant not revoked at Google")
	}
	if _, err := os.Stat(e.cfg.TokenPath); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("token file still there: %v", err)
	}
	from := e.clock.Now()
	if _, err := c.Fetch(t.Context(), from, from.Add(time.Hour)); !errors.Is(err, calendar.ErrNotConnected) {
		t.Errorf("Fetch after disconnect: %v", err)
	}
	if err := c.Disconnect(t.Context()); err != nil {
		t.Errorf("second disconnect: %v", err)
	}
}

// A grant Google already forgot still disconnects cleanly; an unreachable
// revocation endpoint is reported, but the file goes anyway.
func TestDisconnectWhenRevocationFails(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "")
	c := e.client()
	e.connect(c)
	e.g.RevokeAll()
	if err := c.Disconnect(t.Context()); err != nil {
		t.Fatalf("disconnect of an already revoked grant: %v", err)
	}
	e.connect(c)
	e.g.Close()
	if err := c.Disconnect(t.Context()); err == nil {
		t.Error("no error when Google could not be reached")
	}
	if c.Connected() {
		t.Error("token file kept after a failed revocation")
	}
}

// The CLI's `metaclaw calendar connect` runs in another process: a running
// client picks up the token file it writes.
func TestTokenFileWrittenByAnotherProcess(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "")
	e.g.SetBusy("primary")
	daemon := e.client()
	e.connect(daemon)
	from := e.clock.Now()
	if _, err := daemon.Fetch(t.Context(), from, from.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	e.g.RevokeAll()       // the old grant dies ...
	e.connect(e.client()) // ... and the CLI connects again
	if _, err := daemon.Fetch(t.Context(), from, from.Add(time.Hour)); err != nil {
		t.Fatalf("daemon did not pick up the new token: %v", err)
	}
}
