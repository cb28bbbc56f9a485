package proxy

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"strings"
	"unsafe"

	"github.com/metaclaw/metaclaw/proxy/learning"
	"github.com/metaclaw/metaclaw/store"
)

// Identity headers, and the body fields that may carry the same values
// (removed before forwarding).
const (
	hdrSessionID   = "X-Session-Id"
	hdrTurnType    = "X-Turn-Type"
	hdrSessionDone = "X-Session-Done"
	hdrUserID      = "X-User-Id"
	hdrWorkspaceID = "X-Workspace-Id"
	hdrMemoryScope = "X-Memory-Scope"
)

// identityFields maps each identity header to its body field.
var identityFields = map[string]string{
	hdrSessionID: "session_id", hdrTurnType: "turn_type", hdrSessionDone: "session_done",
	hdrUserID: "user_id", hdrWorkspaceID: "workspace_id", hdrMemoryScope: "memory_scope",
}

// identity says which session, scope and kind a turn belongs to.
type identity struct {
	sessionID   string
	derived     bool // no session id was given; one was derived per client
	turnType    string
	side        string // why a turn the client did not type is a side turn (learning.SideRequest)
	sessionDone bool
	scope       string
	client      string
}

// identify reads identity from headers, falling back to body fields; get
// returns a header value, field a body field's value (as text). A turn the
// client does not type is a main turn unless conv is one of an agent's
// side requests (learning.SideRequest).
func identify(get, field func(string) string, defaultScope string, conv []learning.Message) (identity, error) {
	val := func(h string) string {
		if v := strings.TrimSpace(get(h)); v != "" {
			return v
		}
		return strings.TrimSpace(field(identityFields[h]))
	}
	id := identity{sessionID: val(hdrSessionID), turnType: strings.ToLower(val(hdrTurnType))}
	switch id.turnType {
	case "":
		id.turnType = store.TurnMain
		if id.side = learning.SideRequest(conv); id.side != "" {
			id.turnType = store.TurnSide
		}
	case store.TurnMain, store.TurnSide:
	default:
		return id, fmt.Errorf("X-Turn-Type (or turn_type) must be main or side, not %q", id.turnType)
	}
	switch strings.ToLower(val(hdrSessionDone)) {
	case "", "0", "false", "no":
	case "1", "true", "yes":
		id.sessionDone = true
	default:
		return id, fmt.Errorf("X-Session-Done (or session_done) must be true or false")
	}
	if len(id.sessionID) > 200 {
		return id, fmt.Errorf("X-Session-Id is longer than 200 characters")
	}
	id.scope = scopeOf(val(hdrMemoryScope), val(hdrUserID), val(hdrWorkspaceID), defaultScope)
	return id, nil
}

// scopeOf picks the memory scope: X-Memory-Scope, else the user and
// workspace ids, else the configured default.
func scopeOf(scope, user, workspace, def string) string {
	switch {
	case scope != "":
		return scope
	case user != "" && workspace != "":
		return "user:" + user + "/workspace:" + workspace
	case user != "":
		return "user:" + user
	case workspace != "":
		return "workspace:" + workspace
	}
	return def
}

// deriveSession makes a stable session id for a client that sends none: the
// same client (credential and user agent), system prompt (every system or
// developer message, in order) and first user message give the same id on
// every turn of a conversation.
func deriveSession(clientKey string, conv []learning.Message) string {
	h := sha256.New()
	// Views, not copies, of the texts: the system prompt of a coding agent
	// is tens of kilobytes, and the hash keeps none of it.
	write := func(s string) { h.Write(unsafe.Slice(unsafe.StringData(s), len(s))) }
	write(clientKey)
	h.Write([]byte{0})
	for _, m := range conv {
		if m.Role == "system" || m.Role == "developer" {
			write(m.Text)
		}
	}
	h.Write([]byte{0})
	for _, m := range conv {
		if m.Role == "user" {
			write(m.Text)
			break
		}
	}
	h.Write([]byte{0})
	var sum [sha256.Size]byte
	return "auto-" + hex.EncodeToString(h.Sum(sum[:0])[:8])
}

// clientKey identifies a client without keeping its credential: a hash of
// the credential and the user agent's product name.
func clientKey(credential, userAgent string) string {
	product, _, _ := strings.Cut(userAgent, " ")
	sum := sha256.Sum256([]byte(credential + "\x00" + product))
	return hex.EncodeToString(sum[:6])
}

// credentialOf returns the credential a request carries: the bearer token
// or the x-api-key value.
func credentialOf(authorization, apiKey string) string {
	if apiKey != "" {
		return apiKey
	}
	if t, ok := strings.CutPrefix(authorization, "Bearer "); ok {
		return strings.TrimSpace(t)
	}
	return strings.TrimSpace(authorization)
}

// checkKey compares a presented key with the configured one in constant
// time.
func checkKey(presented, want string) bool {
	return subtle.ConstantTimeCompare([]byte(presented), []byte(want)) == 1
}
