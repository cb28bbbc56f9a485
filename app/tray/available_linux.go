//go:build linux

package tray

import (
	"errors"
	"fmt"
	"os"

	"github.com/godbus/dbus/v5"
)

// Available reports why a tray icon cannot be shown, or nil when it can: on
// Linux the icon needs a session bus, and a StatusNotifierWatcher (the tray
// host) on it to be seen (ErrNoHost otherwise).
func Available() error {
	if os.Getenv("DBUS_SESSION_BUS_ADDRESS") == "" {
		if _, err := os.Stat(fmt.Sprintf("/run/user/%d/bus", os.Getuid())); err != nil {
			return errors.New("no D-Bus session bus")
		}
	}
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		return fmt.Errorf("no D-Bus session bus: %w", err)
	}
	defer conn.Close()
	var owner string
	err = conn.BusObject().Call("org.freedesktop.DBus.GetNameOwner", 0, "org.kde.StatusNotifierWatcher").Store(&owner)
	if err != nil {
		return ErrNoHost
	}
	return nil
}
