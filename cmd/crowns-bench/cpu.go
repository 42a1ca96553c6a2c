package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// clockTicksPerSecond is USER_HZ, the unit of /proc/<pid>/stat's CPU
// times: 100 on every Linux the bench runs on.
const clockTicksPerSecond = 100

// processCPU is the CPU time (user and system) process pid has spent, from
// /proc/<pid>/stat; zero when it cannot be read (another system).
func processCPU(pid int) time.Duration {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name, in parentheses, may hold spaces: fields are
	// counted from its closing parenthesis.
	rest := string(raw)
	if i := strings.LastIndexByte(rest, ')'); i >= 0 {
		rest = rest[i+1:]
	}
	fields := strings.Fields(rest)
	// utime and stime are the 14th and 15th fields of the line, the 12th
	// and 13th after the name.
	if len(fields) < 13 {
		return 0
	}
	user, err1 := strconv.ParseInt(fields[11], 10, 64)
	system, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0
	}
	return time.Duration(user+system) * time.Second / clockTicksPerSecond
}

// ownCPU is the CPU time the bench's own process (the load generator) has
// spent.
func ownCPU() time.Duration {
	var usage syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &usage) != nil {
		return 0
	}
	return time.Duration(usage.Utime.Nano() + usage.Stime.Nano())
}

// cpuSpent is the CPU time a server process and the load generator spent
// on a row's requests.
type cpuSpent struct {
	server, client time.Duration
}

// measureCPU runs drive and returns its outcome with the CPU time the
// server process pid and the load generator spent meanwhile.
func measureCPU(pid int, drive func() loadOutcome) (loadOutcome, cpuSpent) {
	server, client := processCPU(pid), ownCPU()
	out := drive()
	return out, cpuSpent{server: processCPU(pid) - server, client: ownCPU() - client}
}

func (c *cpuSpent) add(other cpuSpent) {
	c.server += other.server
	c.client += other.client
}
