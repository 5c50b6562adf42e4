package pty

import "golang.org/x/sys/unix"

// The older ways of waiting for input that amd64 still has and newer arches do without.
func init() {
	waitsOn[unix.SYS_SELECT] = waitSelect
	waitsOn[unix.SYS_POLL] = waitPoll
	waitsOn[unix.SYS_EPOLL_WAIT] = waitEpoll
}
