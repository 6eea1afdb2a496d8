//go:build !linux

package pdeathsig

import "os/exec"

// Set does nothing: this system has no parent-death signal.
func Set(cmd *exec.Cmd) {}
