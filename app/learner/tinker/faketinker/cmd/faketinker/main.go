// Command faketinker runs the fake Tinker service so a person can point
// MetaClaw at it by hand:
//
//	faketinker -addr 127.0.0.1:8089 -key tml-test
//	metaclaw config rl.base_url http://127.0.0.1:8089
//	metaclaw config rl.api_key tml-test
//
// It prints the base URL and serves until interrupted.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/metaclaw/metaclaw/app/learner/tinker/faketinker"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	key := flag.String("key", "tml-fake-key", "API key clients must send")
	tok := flag.String("tokenizer", "", "tokenizer_id reported by get_info (default: the base model)")
	prefix := flag.String("prefix", "", "path prefix before /api/v1 (e.g. /train)")
	flag.Parse()
	s, err := faketinker.Start(faketinker.Options{Addr: *addr, APIKey: *key, TokenizerID: *tok, PathPrefix: *prefix})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println("fake Tinker service at", s.URL())
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	s.Close()
}
