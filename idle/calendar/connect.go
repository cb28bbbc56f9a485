package calendar

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"fmt"
	"html/template"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"
)

// PendingConnect is one run of the installed-app OAuth flow: a loopback
// listener on 127.0.0.1 waiting for Google to send the browser back with
// an authorization code. Show URL to the person, then call Wait.
type PendingConnect struct {
	c        *Client
	conf     oauth2.Config // the client's, with this run's redirect URL
	url      string
	state    string
	verifier string
	srv      *http.Server
	calls    chan answer
	closed   chan struct{}
	close    sync.Once
}

// answer is one authorization answer whose state matched.
type answer struct {
	code, errCode string
	reply         chan error // the outcome, for the page shown in the browser
}

// StartConnect opens the loopback listener and builds the authorization
// URL: offline access (a refresh token), consent forced so a reconnect
// gets a fresh refresh token, PKCE S256 and a random state. ctx bounds
// only the set-up; the flow then lives until Wait returns or Close.
func (c *Client) StartConnect(ctx context.Context) (*PendingConnect, error) {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen for calendar authorization: %w", err)
	}
	p := &PendingConnect{
		c:        c,
		conf:     *c.oauth,
		state:    rand.Text(),
		verifier: oauth2.GenerateVerifier(),
		calls:    make(chan answer),
		closed:   make(chan struct{}),
	}
	// Google accepts any port on a loopback address for desktop clients;
	// the root path is the form its own libraries use.
	p.conf.RedirectURL = fmt.Sprintf("http://%s/", ln.Addr())
	p.url = p.conf.AuthCodeURL(p.state, oauth2.AccessTypeOffline,
		oauth2.S256ChallengeOption(p.verifier), oauth2.SetAuthURLParam("prompt", "consent"))
	p.srv = &http.Server{Handler: http.HandlerFunc(p.callback), ReadHeaderTimeout: 10 * time.Second}
	go p.srv.Serve(ln) //nolint:errcheck // ends with Close; ErrServerClosed is the normal end
	return p, nil
}

// URL is the Google authorization page to open in the browser.
func (p *PendingConnect) URL() string { return p.url }

// RedirectURL is the loopback address Google sends the browser back to.
func (p *PendingConnect) RedirectURL() string { return p.conf.RedirectURL }

// Wait blocks until the browser comes back, ctx ends or the connect
// timeout passes. On success the code has been exchanged (with the PKCE
// verifier) and the token saved to the token file. Wait closes the flow.
func (p *PendingConnect) Wait(ctx context.Context) (*oauth2.Token, error) {
	defer p.Close()
	timer := time.NewTimer(p.c.cfg.ConnectTimeout)
	defer timer.Stop()
	select {
	case cb := <-p.calls:
		tok, err := p.finish(ctx, cb)
		cb.reply <- err
		return tok, err
	case <-ctx.Done():
		return nil, fmt.Errorf("wait for calendar authorization: %w", ctx.Err())
	case <-timer.C:
		return nil, fmt.Errorf("calendar authorization: no answer from the browser within %s", p.c.cfg.ConnectTimeout)
	case <-p.closed:
		return nil, errors.New("calendar authorization abandoned")
	}
}

func (p *PendingConnect) finish(ctx context.Context, cb answer) (*oauth2.Token, error) {
	if cb.errCode != "" {
		return nil, fmt.Errorf("calendar authorization refused: %s", cb.errCode)
	}
	if cb.code == "" {
		return nil, errors.New("calendar authorization: callback without a code")
	}
	ctx = context.WithValue(ctx, oauth2.HTTPClient, p.c.base)
	tok, err := p.conf.Exchange(ctx, cb.code, oauth2.VerifierOption(p.verifier))
	if err != nil {
		return nil, fmt.Errorf("exchange calendar authorization code: %w", err)
	}
	if granted, _ := tok.Extra("scope").(string); granted != "" && !slices.Contains(strings.Fields(granted), p.conf.Scopes[0]) {
		return nil, errors.New("calendar authorization: access to the calendar was not granted (tick the calendar box on Google's consent page)")
	}
	if err := p.c.tokens.store(tok); err != nil {
		return nil, err
	}
	return tok, nil
}

// Close stops the loopback listener; a Wait in progress returns.
func (p *PendingConnect) Close() error {
	var err error
	p.close.Do(func() {
		close(p.closed)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		err = p.srv.Shutdown(ctx) // lets the result page finish writing
	})
	return err
}

// callback answers Google's redirect. Only an answer carrying this run's
// state is passed on; anything else is refused and the flow keeps waiting.
func (p *PendingConnect) callback(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/" || r.Method != http.MethodGet {
		http.NotFound(w, r)
		return
	}
	q := r.URL.Query()
	if subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(p.state)) != 1 {
		writePage(w, http.StatusBadRequest, "MetaClaw refused this answer",
			"It does not belong to the sign-in MetaClaw started (state mismatch). Start again from MetaClaw.")
		return
	}
	errCode := q.Get("error")
	errCode = errCode[:min(len(errCode), 64)]
	cb := answer{code: q.Get("code"), errCode: errCode, reply: make(chan error, 1)}
	select {
	case p.calls <- cb:
	case <-p.closed:
		writePage(w, http.StatusGone, "This sign-in is over", "Start again from MetaClaw.")
		return
	case <-r.Context().Done():
		return
	}
	select {
	case err := <-cb.reply:
		if err != nil {
			writePage(w, http.StatusBadRequest, "Google Calendar was not connected", err.Error())
			return
		}
		writePage(w, http.StatusOK, "Google Calendar connected", "You can close this tab and return to MetaClaw.")
	case <-r.Context().Done():
	}
}

var page = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>MetaClaw — {{.Title}}</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem}</style>
</head><body><h1>{{.Title}}</h1><p>{{.Text}}</p></body></html>
`))

func writePage(w http.ResponseWriter, status int, title, text string) {
	var b strings.Builder
	_ = page.Execute(&b, struct{ Title, Text string }{title, text})
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(b.String()))
}
