package web

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/metaclaw/metaclaw/store"
)

// LoginTTL is how long a one-time login token stays valid.
const LoginTTL = 5 * time.Minute

// loginKeyPrefix prefixes the meta-table keys of pending login tokens:
// "web_login:" + hex sha256(token) → expiry in unix milliseconds. Only the
// hash is stored, so a copy of the database does not log anyone in.
const loginKeyPrefix = "web_login:"

// IssueLoginToken creates a one-time login token valid for ttl and records
// its hash in the database, where the running web server (another process,
// for `metaclaw open`) finds it. Expired tokens are purged on the way.
func IssueLoginToken(ctx context.Context, db *store.DB, now time.Time, ttl time.Duration) (string, error) {
	token, err := randomToken()
	if err != nil {
		return "", err
	}
	if _, err := db.SQL().ExecContext(ctx, "DELETE FROM meta WHERE key LIKE ? AND CAST(value AS INTEGER) < ?",
		loginKeyPrefix+"%", now.UnixMilli()); err != nil {
		return "", fmt.Errorf("purge login tokens: %w", err)
	}
	if err := db.SetMeta(ctx, loginKey(token), strconv.FormatInt(now.Add(ttl).UnixMilli(), 10)); err != nil {
		return "", fmt.Errorf("store login token: %w", err)
	}
	return token, nil
}

// LoginURL is the address that logs a browser in with token; base is the
// web page's URL, e.g. http://127.0.0.1:30001.
func LoginURL(base, token string) string {
	return strings.TrimRight(base, "/") + "/login?token=" + url.QueryEscape(token)
}

// consumeLoginToken spends a token: true when it existed and had not
// expired. Either way it cannot be used again (the delete is atomic).
func consumeLoginToken(ctx context.Context, db *store.DB, token string, now time.Time) (bool, error) {
	if len(token) < 32 || len(token) > 128 {
		return false, nil
	}
	var v string
	err := db.SQL().QueryRowContext(ctx, "DELETE FROM meta WHERE key = ? RETURNING value", loginKey(token)).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("check login token: %w", err)
	}
	exp, err := strconv.ParseInt(v, 10, 64)
	return err == nil && now.UnixMilli() <= exp, nil
}

func loginKey(token string) string {
	sum := sha256.Sum256([]byte(token))
	return loginKeyPrefix + hex.EncodeToString(sum[:])
}

// randomToken returns 32 random bytes, base64url without padding.
func randomToken() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("random token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}
