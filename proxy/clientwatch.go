package proxy

import (
	"net"
	"syscall"
	"time"
)

// watchClient cancels the upstream call when the client closes its
// connection while the proxy waits for the upstream's answer. Once
// streaming starts a failed write notices a gone client; before that,
// nothing is written, so without this a client that gave up would keep
// the upstream generating (and billing) until its answer was complete.
//
// It waits for the connection to become readable and peeks at it without
// consuming anything (MSG_PEEK): end of file means the client left; bytes
// mean a pipelined request, and watching stops. The returned stop
// function ends the watch and must be called before the handler answers.
// Where peeking is not supported (Windows), it does nothing.
func watchClient(conn net.Conn, cancel func()) (stop func()) {
	sc, ok := conn.(syscall.Conn)
	if !ok || !canPeek {
		return func() {}
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = rc.Read(func(fd uintptr) bool {
			switch peekState(fd) {
			case peekWait:
				return false // not readable yet: park in the poller
			case peekEOF:
				cancel()
			}
			return true
		})
	}()
	return func() {
		_ = conn.SetReadDeadline(time.Unix(1, 0)) // wakes the parked Read
		<-done
		// fasthttp sets its own deadline before it reads the next request.
		_ = conn.SetReadDeadline(time.Time{})
	}
}

// Results of peeking at a client connection.
const (
	peekWait = iota // nothing to read yet
	peekEOF         // the client closed the connection
	peekData        // bytes are waiting, or an error: stop watching
)
