package pty

import (
	"bytes"
	"os"
	"strconv"
)

// groupCPU returns, for process group pgrp, the CPU time its processes and their
// waited-for children have used (in clock ticks), and whether one of them is on a CPU or
// in uninterruptible sleep right now (state R or D in /proc/PID/stat). ok is false when
// /proc cannot be read.
func groupCPU(pgrp int) (ticks uint64, running, ok bool) {
	if pgrp <= 0 {
		return 0, false, false
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, false, false
	}
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // gone meanwhile
		}
		st, ok := parseStat(b)
		if !ok || st.pgrp != pgrp {
			continue
		}
		ticks += st.cpu
		running = running || st.state == 'R' || st.state == 'D'
	}
	return ticks, running, true
}

// stat is what groupCPU reads of a /proc/PID/stat line.
type stat struct {
	state byte
	pgrp  int
	cpu   uint64 // utime + stime + cutime + cstime
}

// parseStat reads "pid (comm) state ppid pgrp … utime stime cutime cstime …", where comm
// may hold spaces and parentheses.
func parseStat(b []byte) (stat, bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return stat{}, false
	}
	f := bytes.Fields(b[i+1:]) // f[0] is field 3 (state)
	if len(f) < 15 || len(f[0]) != 1 {
		return stat{}, false
	}
	g, err := strconv.Atoi(string(f[2]))
	if err != nil {
		return stat{}, false
	}
	st := stat{state: f[0][0], pgrp: g}
	for _, k := range f[11:15] { // fields 14–17
		v, err := strconv.ParseUint(string(k), 10, 64)
		if err != nil {
			return stat{}, false
		}
		st.cpu += v
	}
	return st, true
}
