package calendar

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"

	"github.com/metaclaw/metaclaw/idle"
)

// expiryDelta is how long before its stated expiry an access token is
// treated as expired, so it does not lapse in flight.
const expiryDelta = time.Minute

// tokenSource hands out access tokens from the token file, refreshing them
// when they expire by the injected clock or when Google rejects one, and
// writing every refreshed token back. It rereads the token file before
// each use, so a file rewritten or deleted by another process (the CLI's
// connect or disconnect) takes effect at the next call.
type tokenSource struct {
	path  string
	conf  *oauth2.Config
	base  *http.Client
	clock idle.Clock
	log   *slog.Logger

	mu   sync.Mutex    // guards tok and seen, and serialises refresh, save and delete
	tok  *oauth2.Token // nil when no usable token is loaded
	seen [32]byte      // SHA-256 of the token file as tok was read or written
}

// token returns a usable access token, refreshing it if needed.
func (s *tokenSource) token(ctx context.Context) (*oauth2.Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.syncLocked(); err != nil {
		return nil, err
	}
	if s.validLocked() {
		return s.tok, nil
	}
	return s.refreshLocked(ctx)
}

// syncLocked (re)loads the token file when it appeared or changed.
func (s *tokenSource) syncLocked() error {
	raw, err := readTokenFile(s.path)
	if err != nil {
		s.tok = nil
		return err
	}
	sum := sha256.Sum256(raw)
	if s.tok != nil && sum == s.seen {
		return nil // keep the in-memory state, e.g. a token marked rejected
	}
	tok, err := parseToken(s.path, raw)
	if err != nil {
		s.tok = nil
		return err
	}
	s.tok, s.seen = tok, sum
	return nil
}

func (s *tokenSource) validLocked() bool {
	t := s.tok
	if t == nil || t.AccessToken == "" {
		return false
	}
	return t.Expiry.IsZero() || s.clock.Now().Add(expiryDelta).Before(t.Expiry)
}

func (s *tokenSource) refreshLocked(ctx context.Context) (*oauth2.Token, error) {
	if s.tok.RefreshToken == "" {
		return nil, fmt.Errorf("%w: the stored token cannot be refreshed", ErrReconnectNeeded)
	}
	ctx = context.WithValue(ctx, oauth2.HTTPClient, s.base)
	nt, err := s.conf.TokenSource(ctx, &oauth2.Token{RefreshToken: s.tok.RefreshToken}).Token()
	if err != nil {
		return nil, refreshError(err)
	}
	s.tok = nt
	if err := s.saveLocked(nt); err != nil {
		s.log.Warn("calendar: refreshed token kept in memory only", "err", err)
	}
	return nt, nil
}

func refreshError(err error) error {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) && re.ErrorCode == "invalid_grant" {
		why := re.ErrorDescription
		if why == "" {
			why = re.ErrorCode
		}
		return fmt.Errorf("%w: Google refused the refresh token: %s", ErrReconnectNeeded, why)
	}
	return fmt.Errorf("refresh calendar token: %w", err)
}

func (s *tokenSource) saveLocked(tok *oauth2.Token) error {
	b, err := json.Marshal(tok)
	if err != nil {
		return fmt.Errorf("encode calendar token: %w", err)
	}
	if err := writeTokenFile(s.path, b); err != nil {
		return err
	}
	s.seen = sha256.Sum256(b)
	return nil
}

// store saves a freshly granted token and makes it current.
func (s *tokenSource) store(tok *oauth2.Token) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.saveLocked(tok); err != nil {
		return err
	}
	s.tok = tok
	return nil
}

// invalidate marks access as rejected, so the next token call refreshes.
// A token already replaced by a concurrent refresh is left alone.
func (s *tokenSource) invalidate(access string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tok != nil && s.tok.AccessToken == access {
		t := *s.tok
		t.AccessToken = ""
		s.tok = &t
	}
}

// forget runs revoke on the stored token (if any), then deletes the file,
// holding the lock so no refresh writes it back in between.
func (s *tokenSource) forget(revoke func(*oauth2.Token) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var revokeErr error
	tok, err := LoadToken(s.path)
	switch {
	case err == nil:
		revokeErr = revoke(tok)
	case !errors.Is(err, ErrNotConnected):
		revokeErr = err
	}
	s.tok = nil
	return errors.Join(revokeErr, DeleteToken(s.path))
}

// authTransport adds the bearer token to API requests. When Google answers
// 401 it forces a refresh and retries once: oauth2.Transport refreshes only
// on expiry, but a token can be revoked or expired early on Google's side.
type authTransport struct {
	src  *tokenSource
	base http.RoundTripper
}

// RoundTrip implements http.RoundTripper.
func (t *authTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	tok, err := t.src.token(req.Context())
	if err != nil {
		closeBody(req)
		return nil, err
	}
	resp, err := t.send(req, req.Body, tok)
	if err != nil || resp.StatusCode != http.StatusUnauthorized {
		return resp, err
	}
	if req.Body != nil && req.GetBody == nil {
		return resp, nil // cannot replay the body
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	t.src.invalidate(tok.AccessToken)
	if tok, err = t.src.token(req.Context()); err != nil {
		return nil, err
	}
	var body io.ReadCloser
	if req.GetBody != nil {
		if body, err = req.GetBody(); err != nil {
			return nil, fmt.Errorf("replay calendar request: %w", err)
		}
	}
	return t.send(req, body, tok)
}

func (t *authTransport) send(req *http.Request, body io.ReadCloser, tok *oauth2.Token) (*http.Response, error) {
	r := req.Clone(req.Context())
	r.Body = body
	tok.SetAuthHeader(r)
	return t.base.RoundTrip(r)
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}

// Disconnect revokes the stored grant at Google (refresh token if there
// is one, else the access token) and deletes the token file. The file is
// deleted even when revocation fails; the error then says so, and the
// person can still remove access at myaccount.google.com/permissions.
func (c *Client) Disconnect(ctx context.Context) error {
	err := c.tokens.forget(func(tok *oauth2.Token) error {
		value := tok.RefreshToken
		if value == "" {
			value = tok.AccessToken
		}
		return c.revoke(ctx, value)
	})
	if err != nil {
		return fmt.Errorf("disconnect google calendar: %w", err)
	}
	return nil
}

func (c *Client) revoke(ctx context.Context, token string) error {
	form := url.Values{"token": {token}}.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.cfg.Endpoints.RevokeURL, strings.NewReader(form))
	if err != nil {
		return fmt.Errorf("revoke token: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := c.base.Do(req)
	if err != nil {
		return fmt.Errorf("revoke token: %w", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	switch {
	case resp.StatusCode == http.StatusOK:
		return nil
	case resp.StatusCode == http.StatusBadRequest && strings.Contains(string(body), "invalid_token"):
		return nil // already expired or revoked: the goal is met
	}
	return fmt.Errorf("revoke token: google answered %s", resp.Status)
}
