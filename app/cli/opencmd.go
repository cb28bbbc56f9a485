package cli

import (
	"context"
	"fmt"
	"os/exec"
	"runtime"
	"time"

	"github.com/metaclaw/metaclaw/app/instance"
	"github.com/metaclaw/metaclaw/web"
)

// browserCommand returns the command that opens url in the default
// browser; tests replace it.
var browserCommand = func(url string) *exec.Cmd {
	switch runtime.GOOS {
	case "darwin":
		return exec.Command("open", url)
	case "windows":
		return exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	}
	return exec.Command("xdg-open", url)
}

// runOpen logs the default browser into the running MetaClaw's web page
// with a one-time token, or prints the login URL with --print (headless
// machines, SSH tunnels). The token's hash goes into the database, where
// the running web server accepts it once, within web.LoginTTL.
func runOpen(env *Env, args []string) error {
	fs := newFlags(env, "open", "[--print]")
	printOnly := fs.Bool("print", false, "print the one-time login URL instead of opening a browser")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError("open: unexpected argument %q", fs.Arg(0))
	}
	base, url, err := loginURL()
	if err != nil {
		return err
	}
	if *printOnly {
		fmt.Fprintln(env.Stdout, url)
		fmt.Fprintf(env.Stderr, "one-time login link, valid for %v\n", web.LoginTTL)
		return nil
	}
	if err := browserCommand(url).Start(); err != nil {
		fmt.Fprintf(env.Stderr, "could not open a browser (%v); open this one-time link instead:\n", err)
		fmt.Fprintln(env.Stdout, url)
		return nil
	}
	fmt.Fprintln(env.Stdout, "opening", base, "in your browser")
	return nil
}

// loginURL finds the running MetaClaw's web page and issues a one-time
// login token for it; it returns the page's base URL and the login URL.
func loginURL() (string, string, error) {
	dir, err := home()
	if err != nil {
		return "", "", err
	}
	info, err := instance.ReadInfo(dir)
	if err != nil || !instance.Held(dir) {
		return "", "", &exitError{code: 1, msg: "MetaClaw is not running: start it first (metaclaw start --daemon)"}
	}
	if info.WebURL == "" {
		return "", "", &exitError{code: 1, msg: "the running MetaClaw has no web page: web.port may be in use (see " + instance.LogName + ")"}
	}
	db, _, err := openDB()
	if err != nil {
		return "", "", err
	}
	defer db.Close()
	token, err := web.IssueLoginToken(context.Background(), db, time.Now(), web.LoginTTL)
	if err != nil {
		return "", "", err
	}
	return info.WebURL, web.LoginURL(info.WebURL, token), nil
}
