package hosts

import (
	"path/filepath"
	"strings"
)

// Config is one [[hosts]] entry of config.toml, checked (cmd/trailboss).
type Config struct {
	Name    string   // how the hub names the host: Item.Host, `trailboss hosts`
	SSH     string   // a destination as ssh takes it: an ssh_config alias, user@host
	Options []string // more arguments for ssh, before the destination (-F FILE, -p PORT)
	Command string   // the remote trailboss; "" for "trailboss" on the remote PATH
}

// MaxControlPath is the longest ControlPath ssh can bind: a unix socket's path is at most
// 107 bytes, and ssh binds a temporary name 17 bytes longer first, then renames it.
const MaxControlPath = 107 - 17

// ControlPath returns where the ControlMaster of host name listens: in the state directory,
// which only the operator can enter.
func ControlPath(stateDir, name string) string {
	return filepath.Join(stateDir, "ssh-"+name)
}

// sshArgs returns the arguments of the ssh that carries the bridge to c's host. The options
// that keep the connection Trail Boss's own come first, since ssh takes the first value it
// is given for each: a ControlMaster at ctl and nothing forwarded (no port opened on either
// side, no agent or display handed to the remote), no question asked (the daemon has no
// terminal). The operator's options follow, then defaults they may override: a dead
// connection noticed within about ten seconds.
func sshArgs(c Config, ctl string) []string { return sshArgsAs(c, ctl, "yes") }

// sshForwardArgs returns the arguments of an ssh that carries one forwarded request (an
// answer) to c's host as a new session of the ControlMaster at ctl, which is there while
// the host is connected.
func sshForwardArgs(c Config, ctl string) []string { return sshArgsAs(c, ctl, "no") }

func sshArgsAs(c Config, ctl, master string) []string {
	args := []string{
		"-o", "ControlMaster=" + master, "-o", "ControlPath=" + ctl, "-o", "ControlPersist=no",
		"-o", "BatchMode=yes", "-o", "ClearAllForwardings=yes", "-o", "ForwardAgent=no",
		"-o", "ForwardX11=no", "-o", "PermitLocalCommand=no", "-o", "RequestTTY=no",
	}
	args = append(args, c.Options...)
	args = append(args, "-o", "ServerAliveInterval=5", "-o", "ServerAliveCountMax=2", "-o", "ConnectTimeout=10")
	return append(args, "--", c.SSH, remoteCommand(c.Command)+" bridge")
}

// remoteCommand returns command as a word for the remote user's shell, which ssh hands the
// command line to: quoted whole, but for a leading ~/, which the shell is to expand.
func remoteCommand(command string) string {
	if command == "" {
		command = "trailboss"
	}
	if rest, ok := strings.CutPrefix(command, "~/"); ok {
		return `"$HOME"/` + shellQuote(rest)
	}
	return shellQuote(command)
}

// shellQuote returns s in single quotes for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
