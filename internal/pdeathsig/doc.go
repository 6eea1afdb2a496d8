// Package pdeathsig ties the life of a child process to this one's, so
// that no server a test or a benchmark starts outlives it: on Linux,
// [Set] has the kernel kill the child (SIGKILL) when this process dies,
// however it dies, killed with SIGKILL or by the panic of go test's
// -timeout included. Elsewhere Set does nothing.
//
// The kernel's parent-death signal (prctl PR_SET_PDEATHSIG, Go's
// [syscall.SysProcAttr] Pdeathsig) fires when the thread that started the
// child ends, not when its process does. Go's runtime ends a thread
// before the process only when a goroutine exits while locked to it
// ([runtime.LockOSThread] without the unlock), which nothing in this
// module does: such a goroutine would take with it every child started
// from its thread, by any goroutine.
package pdeathsig
