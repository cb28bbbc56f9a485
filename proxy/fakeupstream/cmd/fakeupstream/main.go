// Command fakeupstream runs the fake LLM provider of package
// github.com/metaclaw/metaclaw/proxy/fakeupstream as a standalone server,
// for benchmarks and end-to-end tests with non-Go agents.
//
// Usage:
//
//	fakeupstream [-addr 127.0.0.1:0] [-text "..."] [-reasoning "..."]
//	             [-chunk-size 4] [-chunk-delay 0] [-first-byte-delay 0]
//	             [-models a,b] [-record]
//
// Once listening it prints "READY http://HOST:PORT" on stdout, then serves
// until SIGINT or SIGTERM. Request recording is off unless -record is given,
// so memory stays flat under load.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/metaclaw/metaclaw/proxy/fakeupstream"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "fakeupstream:", err)
		os.Exit(1)
	}
}

// run parses the flags, starts the server and waits for a signal.
func run() error {
	addr := flag.String("addr", "127.0.0.1:0", "listen address (host:port)")
	text := flag.String("text", fakeupstream.DefaultText, "assistant text of every reply")
	reasoning := flag.String("reasoning", "", "reasoning text of every reply")
	chunkSize := flag.Int("chunk-size", 0, "runes per streamed delta (0: 4)")
	chunkDelay := flag.Duration("chunk-delay", 0, "delay between SSE events")
	firstByte := flag.Duration("first-byte-delay", 0, "delay before the response headers")
	models := flag.String("models", "", "comma-separated model ids for /v1/models")
	record := flag.Bool("record", false, "record requests (memory grows with traffic)")
	flag.Parse()

	// Listen for signals before announcing READY, so that a signal sent
	// right after READY is never lost.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	up := fakeupstream.New()
	up.SetRecording(*record)
	up.SetDefault(fakeupstream.Reply{
		Text: *text, Reasoning: *reasoning, ChunkSize: *chunkSize,
		ChunkDelay: *chunkDelay, FirstByteDelay: *firstByte,
	})
	if *models != "" {
		up.SetModels(strings.Split(*models, ","))
	}
	base, err := up.Listen(*addr)
	if err != nil {
		return err
	}
	fmt.Println("READY " + base)
	<-ctx.Done()
	return up.Close()
}
