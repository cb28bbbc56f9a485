//go:build linux

package tray

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/godbus/dbus/v5/prop"
)

// TestKeepRegistered: a tray host that starts after the icon was exported,
// when nothing else registers the icon (systray having missed it), gets
// the icon registered once, by keepRegistered on the icon's own
// connection; when the host starts again and the icon registers itself,
// keepRegistered adds no second registration. It runs itself again under
// dbus-run-session (skipped without it, failed with METACLAW_E2E=1).
func TestKeepRegistered(t *testing.T) {
	if os.Getenv("METACLAW_REGISTER_INNER") != "1" {
		if _, err := exec.LookPath("dbus-run-session"); err != nil {
			if os.Getenv("METACLAW_E2E") == "1" {
				t.Fatalf("METACLAW_E2E=1 needs dbus-run-session (apt-get install dbus): %v", err)
			}
			t.Skip("dbus-run-session not found (apt-get install dbus)")
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "dbus-run-session", "--", os.Args[0], "-test.run=^TestKeepRegistered$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), "METACLAW_REGISTER_INNER=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !bytes.Contains(out, []byte("--- PASS: TestKeepRegistered")) {
			t.Fatalf("inside dbus-run-session: %v\n%s", err, out)
		}
		return
	}
	conn, err := dbus.SessionBus() // the connection systray would export the icon on
	if err != nil {
		t.Fatal(err)
	}
	if _, err := prop.Export(conn, itemPath, map[string]map[string]*prop.Prop{"org.kde.StatusNotifierItem": {
		"Title": {Value: "MetaClaw", Emit: prop.EmitTrue},
	}}); err != nil {
		t.Fatal(err)
	}
	stopped := make(chan struct{})
	done := make(chan struct{})
	go func() { keepRegistered(stopped, slog.New(slog.NewTextHandler(io.Discard, nil))); close(done) }()
	defer func() { close(stopped); <-done }()
	time.Sleep(2 * registerCheck) // the icon's own first try, with no host, is over

	host := startHost(t)
	select {
	case got := <-host.registered:
		if want := conn.Names()[0] + itemPath; got != want {
			t.Errorf("registered %q, want %q", got, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the icon was not registered with a tray host that started after it")
	}
	host.conn.Close()

	// The host comes back and the icon registers itself at once, as
	// systray does when it sees the host: no second registration.
	again := startHost(t)
	if err := conn.Object(watcherName, "/StatusNotifierWatcher").Call(watcherName+".RegisterStatusNotifierItem", 0, itemPath).Err; err != nil {
		t.Fatal(err)
	}
	<-again.registered
	select {
	case got := <-again.registered:
		t.Errorf("registered twice (%q)", got)
	case <-time.After(3 * registerCheck):
	}
}

// host is a StatusNotifierWatcher stub on its own connection.
type host struct {
	conn       *dbus.Conn
	props      *prop.Properties
	registered chan string
	mu         sync.Mutex
	items      []string
}

func startHost(t *testing.T) *host {
	t.Helper()
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	h := &host{conn: conn, registered: make(chan string, 4)}
	if err := conn.Export(h, "/StatusNotifierWatcher", watcherName); err != nil {
		t.Fatal(err)
	}
	if h.props, err = prop.Export(conn, "/StatusNotifierWatcher", map[string]map[string]*prop.Prop{watcherName: {
		"RegisteredStatusNotifierItems": {Value: []string{}, Emit: prop.EmitTrue},
	}}); err != nil {
		t.Fatal(err)
	}
	if reply, err := conn.RequestName(watcherName, dbus.NameFlagDoNotQueue); err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own %s: %v (reply %d)", watcherName, err, reply)
	}
	return h
}

// RegisterStatusNotifierItem records an item as the sender's name plus the
// path it gives.
func (h *host) RegisterStatusNotifierItem(sender dbus.Sender, service string) *dbus.Error {
	h.mu.Lock()
	h.items = append(h.items, string(sender)+service)
	items := append([]string(nil), h.items...)
	h.mu.Unlock()
	h.props.SetMust(watcherName, "RegisteredStatusNotifierItems", items)
	h.registered <- string(sender) + service
	return nil
}
