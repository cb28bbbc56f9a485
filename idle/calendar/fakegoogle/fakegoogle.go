// Package fakegoogle is a fake of the Google endpoints idle/calendar talks
// to — the OAuth authorize, token and revoke endpoints and the Calendar
// API's freeBusy and events.list — speaking their documented JSON over
// real HTTP on 127.0.0.1. It checks what Google checks (client id, loopback
// redirect, PKCE S256, single-use codes, bearer tokens, scopes) and can be
// told to fail: expired access tokens, revoked grants, 429 with
// Retry-After, 5xx and dropped connections.
//
// It is a test helper: idle/calendar's tests and app-level end-to-end
// tests (e.g. of `metaclaw calendar connect`) may import it; production
// code must not. It imports only the standard library.
package fakegoogle

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// The client the fake knows, as in the client secrets it hands out.
const (
	ClientID     = "1234-fake.apps.googleusercontent.com"
	ClientSecret = "fake-client-secret"
)

// Stats counts what the fake was asked.
type Stats struct {
	Authorizations  int // authorize requests that redirected with a code
	CodeExchanges   int // successful authorization_code grants
	Refreshes       int // successful refresh_token grants
	Revocations     int // successful revocations
	FreeBusyQueries int // answered freeBusy queries
	EventPages      int // answered events.list pages
	Unauthorized    int // API requests refused with 401
}

// Fault is a failure served to the next Calendar API request instead of
// its answer.
type Fault struct {
	Status     int    // HTTP status, e.g. 429 or 503
	RetryAfter string // Retry-After header value, if any
	Drop       bool   // hang up without an answer (a network error)
}

// Server is a running fake. Its methods are safe for concurrent use.
type Server struct {
	// URL is the root, e.g. http://127.0.0.1:41234.
	URL string
	ts  *httptest.Server

	mu         sync.Mutex // guards every field below
	seq        int
	codes      map[string]grant
	access     map[string]*accessToken
	refresh    map[string]*refreshToken
	busy       map[string][]Period
	cals       map[string]Calendar
	faults     []Fault
	deny       string
	grantScope string
	pageSize   int
	stats      Stats
}

type grant struct {
	challenge, redirect, scope string
	offline                    bool
}

type accessToken struct {
	scope, refresh string
	expired        bool
}

type refreshToken struct {
	scope   string
	revoked bool
}

// New starts a fake on 127.0.0.1. Close it when done.
func New() *Server {
	s := &Server{
		codes:    map[string]grant{},
		access:   map[string]*accessToken{},
		refresh:  map[string]*refreshToken{},
		busy:     map[string][]Period{},
		cals:     map[string]Calendar{},
		pageSize: 250,
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /o/oauth2/auth", s.authorize)
	mux.HandleFunc("POST /token", s.token)
	mux.HandleFunc("POST /revoke", s.revoke)
	mux.HandleFunc("POST /calendar/v3/freeBusy", s.api(freeBusyScopes, s.freeBusy))
	mux.HandleFunc("GET /calendar/v3/calendars/{id}/events", s.api(eventScopes, s.events))
	s.ts = httptest.NewServer(mux)
	s.URL = s.ts.URL
	return s
}

// Close stops the fake.
func (s *Server) Close() { s.ts.Close() }

// AuthURL is the authorize endpoint.
func (s *Server) AuthURL() string { return s.URL + "/o/oauth2/auth" }

// TokenURL is the token endpoint.
func (s *Server) TokenURL() string { return s.URL + "/token" }

// RevokeURL is the revocation endpoint.
func (s *Server) RevokeURL() string { return s.URL + "/revoke" }

// APIBase is the Calendar API root, for option.WithEndpoint.
func (s *Server) APIBase() string { return s.URL + "/calendar/v3/" }

// ClientSecrets returns an "installed" client secrets JSON, as downloaded
// from Google Cloud console, pointing at this fake.
func (s *Server) ClientSecrets() []byte {
	b, _ := json.Marshal(map[string]any{"installed": map[string]any{
		"client_id":                   ClientID,
		"project_id":                  "metaclaw-fake",
		"auth_uri":                    s.AuthURL(),
		"token_uri":                   s.TokenURL(),
		"auth_provider_x509_cert_url": "https://www.googleapis.com/oauth2/v1/certs",
		"client_secret":               ClientSecret,
		"redirect_uris":               []string{"http://localhost"},
	}})
	return b
}

// DenyConsent makes the person refuse on the consent page: authorize
// redirects with error=reason. An empty reason consents again.
func (s *Server) DenyConsent(reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.deny = reason
}

// GrantScope makes consent grant scope instead of what was asked, as when
// the person unticks a box on Google's granular consent page.
func (s *Server) GrantScope(scope string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.grantScope = scope
}

// ExpireAccessTokens makes every access token issued so far answer 401,
// as Google does once one expires or is invalidated early.
func (s *Server) ExpireAccessTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range s.access {
		a.expired = true
	}
}

// RevokeAll revokes every grant, as the person would at
// myaccount.google.com: refresh grants then fail with invalid_grant.
func (s *Server) RevokeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.refresh {
		r.revoked = true
	}
	for _, a := range s.access {
		a.expired = true
	}
}

// FailNext queues faults for the next Calendar API requests, in order.
func (s *Server) FailNext(faults ...Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, faults...)
}

// Live reports whether an access token is issued and still accepted.
func (s *Server) Live(access string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.access[access]
	return ok && !a.expired && !s.refresh[a.refresh].revokedOrNil()
}

// Revoked reports whether a refresh token was issued and then revoked.
func (s *Server) Revoked(refresh string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.refresh[refresh]
	return ok && r.revoked
}

func (r *refreshToken) revokedOrNil() bool { return r != nil && r.revoked }

// Stats returns the counters.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

func (s *Server) newID(prefix string) string {
	s.seq++
	return fmt.Sprintf("%s%04d-%d", prefix, s.seq, time.Now().UnixNano()%1e6)
}

// authorize plays the consent page: it checks the request as Google does
// and sends the browser back to the loopback redirect with a code.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if msg := checkAuthorize(q); msg != "" {
		http.Error(w, "Error 400: invalid_request\n"+msg, http.StatusBadRequest)
		return
	}
	back, _ := url.Parse(q.Get("redirect_uri"))
	v := url.Values{"state": {q.Get("state")}}
	s.mu.Lock()
	if s.deny != "" {
		v.Set("error", s.deny)
	} else {
		scope := q.Get("scope")
		if s.grantScope != "" {
			scope = s.grantScope
		}
		code := s.newID("4/0A-code-")
		s.codes[code] = grant{challenge: q.Get("code_challenge"), redirect: q.Get("redirect_uri"),
			scope: scope, offline: q.Get("access_type") == "offline"}
		s.stats.Authorizations++
		v.Set("code", code)
		v.Set("scope", scope)
	}
	s.mu.Unlock()
	back.RawQuery = v.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

func checkAuthorize(q url.Values) string {
	back, err := url.Parse(q.Get("redirect_uri"))
	switch {
	case q.Get("client_id") != ClientID:
		return "The OAuth client was not found."
	case q.Get("response_type") != "code":
		return "Invalid response_type."
	case err != nil || back.Scheme != "http" || !slices.Contains([]string{"127.0.0.1", "localhost", "::1"}, back.Hostname()):
		return "redirect_uri must be a loopback address for a desktop client."
	case q.Get("scope") == "":
		return "Missing required parameter: scope"
	case q.Get("code_challenge") == "" || q.Get("code_challenge_method") != "S256":
		return "This client must use PKCE with code_challenge_method=S256."
	}
	return ""
}

// token is the token endpoint: authorization_code (with PKCE) and
// refresh_token grants, answered in Google's JSON.
func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_request", "Malformed body.")
		return
	}
	id, secret, ok := r.BasicAuth()
	if !ok {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	if id != ClientID || secret != ClientSecret {
		oauthError(w, http.StatusUnauthorized, "invalid_client", "The OAuth client was not found.")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch r.PostForm.Get("grant_type") {
	case "authorization_code":
		s.exchange(w, r.PostForm)
	case "refresh_token":
		s.refreshGrant(w, r.PostForm.Get("refresh_token"))
	default:
		oauthError(w, http.StatusBadRequest, "unsupported_grant_type", "Invalid grant_type.")
	}
}

func (s *Server) exchange(w http.ResponseWriter, form url.Values) {
	g, ok := s.codes[form.Get("code")]
	delete(s.codes, form.Get("code")) // single use, even when the rest is wrong
	switch {
	case !ok:
		oauthError(w, http.StatusBadRequest, "invalid_grant", "Malformed auth code.")
		return
	case form.Get("redirect_uri") != g.redirect:
		oauthError(w, http.StatusBadRequest, "redirect_uri_mismatch", "Bad Request")
		return
	case challenge(form.Get("code_verifier")) != g.challenge:
		oauthError(w, http.StatusBadRequest, "invalid_grant", "Invalid code verifier.")
		return
	}
	resp := map[string]any{"expires_in": 3599, "scope": g.scope, "token_type": "Bearer"}
	rt := ""
	if g.offline {
		rt = s.newID("1//0g-refresh-")
		s.refresh[rt] = &refreshToken{scope: g.scope}
		resp["refresh_token"] = rt
	}
	resp["access_token"] = s.issue(g.scope, rt)
	s.stats.CodeExchanges++
	writeJSON(w, http.StatusOK, resp)
}

func (s *Server) refreshGrant(w http.ResponseWriter, rt string) {
	ref, ok := s.refresh[rt]
	if !ok || ref.revoked {
		oauthError(w, http.StatusBadRequest, "invalid_grant", "Token has been expired or revoked.")
		return
	}
	s.stats.Refreshes++
	writeJSON(w, http.StatusOK, map[string]any{
		"access_token": s.issue(ref.scope, rt), "expires_in": 3599,
		"scope": ref.scope, "token_type": "Bearer",
	})
}

func (s *Server) issue(scope, refresh string) string {
	at := s.newID("ya29.a0-access-")
	s.access[at] = &accessToken{scope: scope, refresh: refresh}
	return at
}

// challenge is the S256 PKCE transform of a verifier.
func challenge(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// revoke revokes a refresh token, or an access token and the grant
// behind it, as https://oauth2.googleapis.com/revoke does.
func (s *Server) revoke(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_request", "Malformed body.")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.revokeToken(r.Form.Get("token")) {
		oauthError(w, http.StatusBadRequest, "invalid_token", "Token expired or revoked")
		return
	}
	s.stats.Revocations++
	writeJSON(w, http.StatusOK, map[string]any{})
}

func (s *Server) revokeToken(tok string) bool {
	if a, ok := s.access[tok]; ok {
		if a.refresh == "" {
			live := !a.expired
			a.expired = true
			return live
		}
		tok = a.refresh
	}
	ref, ok := s.refresh[tok]
	if !ok || ref.revoked {
		return false
	}
	ref.revoked = true
	for _, a := range s.access {
		if a.refresh == tok {
			a.expired = true
		}
	}
	return true
}

func oauthError(w http.ResponseWriter, status int, code, desc string) {
	writeJSON(w, status, map[string]string{"error": code, "error_description": desc})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// bearer returns the token of an "Authorization: Bearer" header.
func bearer(r *http.Request) string {
	h := r.Header.Get("Authorization")
	if len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
		return h[7:]
	}
	return ""
}
