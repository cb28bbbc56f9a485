//go:build linux

package tray

import (
	"log/slog"
	"strings"
	"time"

	"github.com/godbus/dbus/v5"
)

const (
	watcherName = "org.kde.StatusNotifierWatcher"
	itemPath    = "/StatusNotifierItem" // where systray exports the icon
	// registerCheck is how long after a tray host appears keepRegistered
	// looks whether the icon is on it: systray registers at once when it
	// saw the host come, so the check finds it there and does nothing.
	registerCheck = 500 * time.Millisecond
)

// keepRegistered registers the icon with a tray host that starts after
// MetaClaw, when systray missed it. systray tries once at start and then
// listens for the host's arrival, but subscribes only after that first
// try: a panel that comes up between the two (MetaClaw and the panel both
// starting at login) never gets the icon. This listens from before
// systray's try, on the same connection (dbus.SessionBus is shared, so a
// registration made here is the icon's own), and registers the icon when
// a host has come and does not list it. It returns when stopped closes.
func keepRegistered(stopped <-chan struct{}, log *slog.Logger) {
	conn, err := dbus.SessionBus()
	if err != nil {
		return
	}
	match := []dbus.MatchOption{
		dbus.WithMatchObjectPath("/org/freedesktop/DBus"),
		dbus.WithMatchInterface("org.freedesktop.DBus"),
		dbus.WithMatchSender("org.freedesktop.DBus"),
		dbus.WithMatchMember("NameOwnerChanged"),
		dbus.WithMatchArg(0, watcherName),
	}
	if err := conn.AddMatchSignal(match...); err != nil {
		return
	}
	defer conn.RemoveMatchSignal(match...)
	signals := make(chan *dbus.Signal, 8)
	conn.Signal(signals)
	defer conn.RemoveSignal(signals)
	check := time.NewTimer(registerCheck) // a host that came before the subscription
	defer check.Stop()
	for {
		select {
		case sig := <-signals:
			if sig == nil {
				return
			}
			if len(sig.Body) == 3 && sig.Body[0] == watcherName && sig.Body[2] != "" {
				check.Reset(registerCheck)
			}
		case <-check.C:
			if ensureRegistered(conn) {
				log.Info("tray icon registered with the tray host that started meanwhile")
			}
		case <-stopped:
			return
		}
	}
}

// ensureRegistered registers the icon with the tray host unless the host
// lists it already or the icon is not exported yet; it reports whether it
// registered it.
func ensureRegistered(conn *dbus.Conn) bool {
	names := conn.Names()
	if len(names) == 0 {
		return false
	}
	me := names[0]
	var props map[string]dbus.Variant
	if conn.Object(me, itemPath).Call("org.freedesktop.DBus.Properties.GetAll", 0, "org.kde.StatusNotifierItem").Store(&props) != nil {
		return false // systray has not exported the icon yet; its own registration follows
	}
	watcher := conn.Object(watcherName, "/StatusNotifierWatcher")
	v, err := watcher.GetProperty(watcherName + ".RegisteredStatusNotifierItems")
	if err != nil {
		return false // no host
	}
	items, _ := v.Value().([]string)
	for _, it := range items {
		if it == me+itemPath || strings.HasPrefix(it, me+"/") || it == me {
			return false
		}
	}
	return watcher.Call(watcherName+".RegisterStatusNotifierItem", 0, itemPath).Err == nil
}
