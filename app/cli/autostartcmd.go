package cli

import (
	"fmt"

	"github.com/metaclaw/metaclaw/app/autostart"
)

// runAutostart turns starting MetaClaw at login on or off for the current
// user, or says whether it is on. The login item starts this executable
// with no arguments: proxy and tray.
func runAutostart(env *Env, args []string) error {
	const usage = "usage: metaclaw autostart on|off|status"
	if len(args) != 1 {
		return usageError(usage)
	}
	login, err := autostart.ForThisProgram()
	if err != nil {
		return err
	}
	switch args[0] {
	case "on":
		if err := login.Enable(); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "MetaClaw will start at login (%s runs %s).\n", login.Location(), login.Exe())
	case "off":
		if err := login.Disable(); err != nil {
			return err
		}
		fmt.Fprintln(env.Stdout, "MetaClaw will not start at login.")
	case "status":
		if login.Enabled() {
			fmt.Fprintf(env.Stdout, "start at login: on (%s)\n", login.Location())
		} else {
			fmt.Fprintln(env.Stdout, "start at login: off")
		}
	case "-h", "--help", "help":
		fmt.Fprintln(env.Stdout, usage)
	default:
		return usageError("autostart: unknown argument %q; %s", args[0], usage)
	}
	return nil
}
