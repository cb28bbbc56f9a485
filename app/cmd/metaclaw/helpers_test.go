package main

import (
	"net"
	"os/exec"
	"strconv"
	"strings"
	"sync"
)

func netListen(port int) (net.Listener, error) {
	return net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
}

func execCommand(in *instance, args ...string) *exec.Cmd {
	cmd := exec.Command(binary, args...)
	cmd.Env = in.env
	return cmd
}

// syncBuffer is a strings.Builder safe for a process's output and a reader.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
