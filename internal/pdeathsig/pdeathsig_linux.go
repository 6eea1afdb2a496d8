package pdeathsig

import (
	"os/exec"
	"syscall"
)

// Set has cmd's process killed when this process dies (see the package
// doc), and must be called before cmd.Start. It keeps cmd's other
// SysProcAttr fields: a [syscall.Credential] too, since Go sets the
// signal after the change of user that would clear it.
func Set(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
