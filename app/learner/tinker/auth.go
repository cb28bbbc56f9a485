package tinker

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"time"
)

const (
	jwtRefreshAhead = 5 * time.Minute // refresh this long before expiry
	jwtMinLeft      = 60 * time.Second
)

// credential is what goes in X-API-Key: the JWT when the service issued
// one, the API key otherwise.
func (c *Client) credential() string {
	c.authMu.Lock()
	defer c.authMu.Unlock()
	if c.jwt != "" {
		return c.jwt
	}
	return c.opts.APIKey
}

// refreshJWT exchanges the API key for a JWT at auth/token.
func (c *Client) refreshJWT(ctx context.Context) error {
	var resp struct {
		JWT string `json:"jwt"`
	}
	o := callOpts{headers: map[string]string{"X-API-Key": c.opts.APIKey}}
	if err := c.do(ctx, "auth/token", []byte("{}"), &resp, o); err != nil {
		return err
	}
	if resp.JWT == "" {
		return errors.New("tinker: auth/token: no jwt in the answer")
	}
	exp := jwtExpiry(resp.JWT)
	c.authMu.Lock()
	c.jwt, c.jwtExp = resp.JWT, exp
	c.authMu.Unlock()
	return nil
}

// maybeRefreshJWT refreshes the JWT when it expires within ahead; failures
// are logged and the old credential kept until the service refuses it.
func (c *Client) maybeRefreshJWT(ctx context.Context, ahead time.Duration) {
	c.authMu.Lock()
	due := c.jwt != "" && !c.jwtExp.IsZero() && c.jwtExp.Sub(c.opts.Now()) < ahead
	c.authMu.Unlock()
	if !due {
		return
	}
	if err := c.refreshJWT(ctx); err != nil {
		c.log.Warn("tinker: refreshing the session credential failed", "err", err)
	}
}

// jwtExpiry reads the exp claim without verifying the token (the service
// does that); zero if absent.
func jwtExpiry(tok string) time.Time {
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return time.Time{}
	}
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil {
		return time.Time{}
	}
	var claims struct {
		Exp float64 `json:"exp"`
	}
	if json.Unmarshal(raw, &claims) != nil || claims.Exp <= 0 {
		return time.Time{}
	}
	return time.Unix(int64(claims.Exp), 0)
}
