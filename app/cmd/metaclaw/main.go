// Command metaclaw runs MetaClaw: see `metaclaw help`.
package main

import (
	"os"

	"github.com/metaclaw/metaclaw/app/cli"
	"github.com/metaclaw/metaclaw/app/tray"
)

// version is stamped at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	// RunMain keeps the main thread for the tray on macOS.
	os.Exit(tray.RunMain(func() int {
		return cli.Main(os.Args[1:], &cli.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Version: version})
	}))
}
