package web

import (
	"crypto/sha256"
	"crypto/subtle"
	"sync"
	"time"
)

// Session lifetimes.
const (
	sessionIdle = 8 * time.Hour  // ends after this long without a request
	sessionMax  = 24 * time.Hour // ends this long after login, whatever happens
	maxSessions = 64             // the oldest go first beyond this
)

// session is one logged-in browser.
type session struct {
	csrf     string // per-session CSRF token, sent back in forms and X-CSRF-Token
	created  time.Time
	lastSeen time.Time
	flash    string // one-shot message for the next page
}

// sessions keeps the logged-in browsers in memory, keyed by the sha256 of
// the cookie value (so map lookups do not compare secrets). A restart logs
// everyone out: `metaclaw open` logs in again.
type sessions struct {
	now func() time.Time
	mu  sync.Mutex            // guards m
	m   map[[32]byte]*session // by sha256(cookie value)
}

func newSessions(now func() time.Time) *sessions {
	return &sessions{now: now, m: map[[32]byte]*session{}}
}

// create starts a session and returns its cookie value.
func (ss *sessions) create() (string, error) {
	id, err := randomToken()
	if err != nil {
		return "", err
	}
	csrf, err := randomToken()
	if err != nil {
		return "", err
	}
	now := ss.now()
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.expire(now)
	ss.m[sha256.Sum256([]byte(id))] = &session{csrf: csrf, created: now, lastSeen: now}
	return id, nil
}

// get returns a copy of the live session of a cookie value and touches it.
func (ss *sessions) get(id string) (session, bool) {
	if id == "" {
		return session{}, false
	}
	now := ss.now()
	ss.mu.Lock()
	defer ss.mu.Unlock()
	s, ok := ss.m[sha256.Sum256([]byte(id))]
	if !ok || !alive(s, now) {
		return session{}, false
	}
	s.lastSeen = now
	return *s, true
}

// popFlash returns and clears the session's one-shot message.
func (ss *sessions) popFlash(id string) string {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	s, ok := ss.m[sha256.Sum256([]byte(id))]
	if !ok {
		return ""
	}
	f := s.flash
	s.flash = ""
	return f
}

// setFlash sets the message the next page shows.
func (ss *sessions) setFlash(id, msg string) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if s, ok := ss.m[sha256.Sum256([]byte(id))]; ok {
		s.flash = msg
	}
}

// end logs a session out.
func (ss *sessions) end(id string) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	delete(ss.m, sha256.Sum256([]byte(id)))
}

// expire drops dead sessions, and the oldest beyond maxSessions. Callers
// hold mu.
func (ss *sessions) expire(now time.Time) {
	var oldestKey [32]byte
	var oldest *session
	for k, s := range ss.m {
		if !alive(s, now) {
			delete(ss.m, k)
			continue
		}
		if oldest == nil || s.created.Before(oldest.created) {
			oldestKey, oldest = k, s
		}
	}
	if len(ss.m) >= maxSessions && oldest != nil {
		delete(ss.m, oldestKey)
	}
}

func alive(s *session, now time.Time) bool {
	return now.Sub(s.lastSeen) < sessionIdle && now.Sub(s.created) < sessionMax
}

// csrfOK compares a presented CSRF token with the session's in constant
// time.
func csrfOK(s session, presented string) bool {
	if presented == "" || s.csrf == "" {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(presented), []byte(s.csrf)) == 1
}
