package proxy

import (
	"net"
	"sync"
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
// mean a pipelined request, and watching stops. The watch starts only once
// the upstream has taken watchAfter to answer: most answers that come
// sooner never pay for it (a goroutine, a peek, two deadline changes), and
// a client that leaves early is noticed watchAfter later at most. The
// returned stop function ends the watch and must be called before the
// handler answers. Where peeking is not supported (Windows), it does
// nothing.
func watchClient(conn net.Conn, cancel func()) (stop func()) {
	sc, ok := conn.(syscall.Conn)
	if !ok || !canPeek {
		return func() {}
	}
	var (
		mu      sync.Mutex
		stopped bool
		done    chan struct{} // set once the watch runs
	)
	t := time.AfterFunc(watchAfter, func() {
		mu.Lock()
		defer mu.Unlock()
		if !stopped {
			done = startWatch(sc, cancel)
		}
	})
	return func() {
		if t.Stop() {
			return // the watch never started
		}
		mu.Lock()
		stopped = true
		d := done
		mu.Unlock()
		if d == nil {
			return
		}
		_ = conn.SetReadDeadline(time.Unix(1, 0)) // wakes the parked Read
		<-d
		// fasthttp sets its own deadline before it reads the next request.
		_ = conn.SetReadDeadline(time.Time{})
	}
}

// watchAfter is how long the upstream may take before the proxy starts
// watching the client.
const watchAfter = 10 * time.Millisecond

// startWatch parks a goroutine in the poller until the client connection
// is readable, and cancels when the client has closed it. The returned
// channel closes when the goroutine ends (after a read deadline wakes it).
func startWatch(sc syscall.Conn, cancel func()) chan struct{} {
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
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
	return done
}

// Results of peeking at a client connection.
const (
	peekWait = iota // nothing to read yet
	peekEOF         // the client closed the connection
	peekData        // bytes are waiting, or an error: stop watching
)
