package fakegoogle_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"testing"

	"golang.org/x/oauth2"

	"github.com/metaclaw/metaclaw/idle/calendar/fakegoogle"
)

func oauthConfig(g *fakegoogle.Server) *oauth2.Config {
	return &oauth2.Config{
		ClientID: fakegoogle.ClientID, ClientSecret: fakegoogle.ClientSecret,
		RedirectURL: "http://127.0.0.1:9/",
		Scopes:      []string{"https://www.googleapis.com/auth/calendar.freebusy"},
		Endpoint:    oauth2.Endpoint{AuthURL: g.AuthURL(), TokenURL: g.TokenURL(), AuthStyle: oauth2.AuthStyleInParams},
	}
}

// authorize follows the consent page up to its redirect and returns the
// redirect's query (the loopback address itself is not dialled).
func authorize(t *testing.T, authURL string) (int, url.Values) {
	t.Helper()
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noFollow.Get(authURL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc, _ := url.Parse(resp.Header.Get("Location"))
	return resp.StatusCode, loc.Query()
}

// The fake checks PKCE: a code exchanged with the wrong verifier is
// refused, and a code is good for one exchange only.
func TestPKCEVerified(t *testing.T) {
	t.Parallel()
	g := fakegoogle.New()
	t.Cleanup(g.Close)
	conf := oauthConfig(g)
	verifier := oauth2.GenerateVerifier()
	status, q := authorize(t, conf.AuthCodeURL("st", oauth2.S256ChallengeOption(verifier)))
	if status != http.StatusFound || q.Get("state") != "st" || q.Get("code") == "" {
		t.Fatalf("authorize: %d %v", status, q)
	}
	_, err := conf.Exchange(context.Background(), q.Get("code"), oauth2.VerifierOption(oauth2.GenerateVerifier()))
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) || re.ErrorCode != "invalid_grant" {
		t.Fatalf("exchange with the wrong verifier: %v", err)
	}
	if _, err := conf.Exchange(context.Background(), q.Get("code"), oauth2.VerifierOption(verifier)); err == nil {
		t.Fatal("a spent code was exchanged again")
	}
	_, q = authorize(t, conf.AuthCodeURL("st", oauth2.S256ChallengeOption(verifier)))
	tok, err := conf.Exchange(context.Background(), q.Get("code"), oauth2.VerifierOption(verifier))
	if err != nil || !g.Live(tok.AccessToken) {
		t.Fatalf("exchange with the right verifier: %v", err)
	}
	if tok.RefreshToken != "" {
		t.Error("refresh token issued without access_type=offline")
	}
}

func TestAuthorizeRejects(t *testing.T) {
	t.Parallel()
	g := fakegoogle.New()
	t.Cleanup(g.Close)
	tests := []struct {
		name string
		edit func(*oauth2.Config) []oauth2.AuthCodeOption
	}{
		{"no PKCE", func(*oauth2.Config) []oauth2.AuthCodeOption { return nil }},
		{"plain PKCE", func(*oauth2.Config) []oauth2.AuthCodeOption {
			return []oauth2.AuthCodeOption{oauth2.SetAuthURLParam("code_challenge", "x"), oauth2.SetAuthURLParam("code_challenge_method", "plain")}
		}},
		{"remote redirect", func(c *oauth2.Config) []oauth2.AuthCodeOption {
			c.RedirectURL = "https://evil.example/cb"
			return []oauth2.AuthCodeOption{oauth2.S256ChallengeOption(oauth2.GenerateVerifier())}
		}},
		{"unknown client", func(c *oauth2.Config) []oauth2.AuthCodeOption {
			c.ClientID = "someone-else"
			return []oauth2.AuthCodeOption{oauth2.S256ChallengeOption(oauth2.GenerateVerifier())}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			conf := oauthConfig(g)
			opts := tt.edit(conf)
			if status, _ := authorize(t, conf.AuthCodeURL("st", opts...)); status != http.StatusBadRequest {
				t.Errorf("status = %d, want 400", status)
			}
		})
	}
}
