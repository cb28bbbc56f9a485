//go:build unix

package proxy

import "syscall"

const canPeek = true

// peekState looks at fd without consuming: end of file, data, or nothing
// yet.
func peekState(fd uintptr) int {
	var b [1]byte
	n, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
	switch {
	case err == syscall.EAGAIN || err == syscall.EWOULDBLOCK || err == syscall.EINTR:
		return peekWait
	case err == nil && n == 0:
		return peekEOF
	}
	return peekData
}
