package tray

// Available reports why a tray icon cannot be shown, or nil when it can:
// macOS always has a menu bar, but the event loop needs RunMain.
func Available() error {
	if !mainActive.Load() {
		return errNoMain
	}
	return nil
}
