package proxy

import (
	"io"
	"net"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// Connection limits. A request's headers must arrive within headerTimeout
// (Options.HeaderTimeout) of its first byte (or of the connection's
// opening); its body then has bodyTimeout. A slow client can hold a connection no longer than that, and
// one remote address no more than proxy.max_connections_per_address of them.
const (
	headerTimeout = 10 * time.Second
	bodyTimeout   = 5 * time.Minute
	// readBufferSize bounds a request's headers (fasthttp reads them into
	// one buffer): long JWTs with forward_client_auth and trace baggage fit.
	readBufferSize = 64 << 10
	// lingerTime and lingerBytes bound how long, and how much, a closed
	// connection keeps reading what the client still sends (see
	// lingerConn).
	lingerTime  = 2 * time.Second
	lingerBytes = 64 << 20 // plus twice proxy.max_body_bytes
)

// connLimiter is the proxy's listener: it caps the connections open from
// one remote address and closes each connection gracefully.
type connLimiter struct {
	net.Listener
	max         func() int // proxy.max_connections_per_address in force
	lingerBytes int64

	mu   sync.Mutex // guards open
	open map[string]int
}

func newConnLimiter(ln net.Listener, max func() int, lingerBytes int64) *connLimiter {
	return &connLimiter{Listener: ln, max: max, lingerBytes: lingerBytes, open: map[string]int{}}
}

// Accept returns the next connection whose address is under its cap; a
// connection over it is answered 429 and closed.
func (l *connLimiter) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		addr := remoteHost(c)
		lc := &lingerConn{Conn: c, l: l, addr: addr}
		if l.add(addr) {
			return lc, nil
		}
		go lc.refuse()
	}
}

func remoteHost(c net.Conn) string {
	host, _, err := net.SplitHostPort(c.RemoteAddr().String())
	if err != nil {
		return c.RemoteAddr().String()
	}
	return host
}

func (l *connLimiter) add(addr string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open[addr] >= l.max() {
		return false
	}
	l.open[addr]++
	return true
}

func (l *connLimiter) done(addr string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open[addr]--; l.open[addr] <= 0 {
		delete(l.open, addr)
	}
}

// tooManyConns is the answer on a connection over its address's cap
// (there is no request to read the API's shape from: OpenAI's).
var tooManyConns = func() string {
	body := `{"error":{"message":"too many connections from this address (proxy.max_connections_per_address)",` +
		`"type":"rate_limit_error","code":"too_many_connections"}}`
	return "HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nRetry-After: 1\r\n" +
		"Connection: close\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
}()

// lingerConn is an accepted connection that closes gracefully: when the
// proxy answers early (413 on a body over the limit, 431, a refused
// request) the client may still be sending, and closing a socket with
// unread bytes makes the kernel reset the connection, which can destroy
// the answer before the client reads it. Close therefore half-closes (the
// client reads the answer, then end of file), reads and drops what the
// client still sends for up to lingerTime and lingerBytes, and then
// closes.
type lingerConn struct {
	net.Conn
	l    *connLimiter
	addr string
	once sync.Once
}

// Close starts the graceful close and returns at once.
func (c *lingerConn) Close() error {
	c.once.Do(func() { go c.linger(true) })
	return nil
}

func (c *lingerConn) linger(counted bool) {
	if counted {
		defer c.l.done(c.addr)
	}
	if tc, ok := c.Conn.(*net.TCPConn); ok && tc.CloseWrite() == nil {
		_ = tc.SetReadDeadline(time.Now().Add(lingerTime))
		_, _ = io.CopyN(io.Discard, tc, c.l.lingerBytes)
	}
	_ = c.Conn.Close()
}

// refuse answers a connection over its address's cap and closes it.
func (c *lingerConn) refuse() {
	c.once.Do(func() {
		_ = c.Conn.SetWriteDeadline(time.Now().Add(time.Second))
		_, _ = io.WriteString(c.Conn, tooManyConns)
		c.linger(false)
	})
}

// SyscallConn gives the client watch (clientwatch.go) the socket.
func (c *lingerConn) SyscallConn() (syscall.RawConn, error) {
	sc, ok := c.Conn.(syscall.Conn)
	if !ok {
		return nil, syscall.EINVAL
	}
	return sc.SyscallConn()
}
