package toolloop

import (
	"os"
	"os/exec"
	"syscall"
)

// canIsolate: Linux gives a command a network namespace of its own, with
// no interface but a loopback that is down. Root needs no more; anybody
// else gets it inside a user namespace that maps their own user id (the
// unprivileged user namespaces most distributions allow), so no setuid
// helper or root trick is involved.
const canIsolate = true

const isolationMissing = "this system refuses new network namespaces (unprivileged user namespaces are off: kernel.unprivileged_userns_clone or user.max_user_namespaces)"

func isolate(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	a := cmd.SysProcAttr
	if os.Geteuid() == 0 {
		a.Cloneflags |= syscall.CLONE_NEWNET
		return
	}
	a.Cloneflags |= syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET
	a.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}}
	a.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}}
	a.GidMappingsEnableSetgroups = false
}
