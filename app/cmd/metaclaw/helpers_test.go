package main

import (
	"net"
	"os/exec"
	"strconv"
)

func netListen(port int) (net.Listener, error) {
	return net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
}

func execCommand(in *instance, args ...string) *exec.Cmd {
	cmd := exec.Command(binary, args...)
	cmd.Env = in.env
	return cmd
}
