package hosts

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/trailboss/trailboss/daemon/wire"
)

// WindowName is the name of the hub's tmux window that holds host's tmux: the operator's
// way into that machine, made on the first jump there and reused after.
func WindowName(host string) string { return "⇄ " + host }

// attachArgs returns the command of the hub's host window for an item on pane of the tmux
// server at socket on c's host: ssh with a terminal, through the hub's ControlMaster when it
// is up (no second login), else a connection of its own, which may ask the operator what
// their ssh asks (the window is theirs, on a terminal), running `trailboss attach` there.
func attachArgs(c Config, ctl, socket, pane string) []string {
	args := []string{"ssh", "-o", "ControlMaster=no", "-o", "ControlPath=" + ctl,
		"-o", "ForwardAgent=no", "-o", "ForwardX11=no", "-o", "PermitLocalCommand=no"}
	args = append(args, c.Options...)
	return append(args, "-t", "--", c.SSH,
		remoteCommand(c.Command)+" attach --socket "+shellQuote(socket)+" --pane "+shellQuote(pane))
}

// shellLine returns argv as one line for a POSIX shell (tmux runs a window's command so).
func shellLine(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = shellQuote(a)
	}
	return strings.Join(q, " ")
}

// Jump asks host's daemon to move the tmux client of the hub's host window there to pane.
func (s *Set) Jump(ctx context.Context, host, socket, pane string) error {
	for _, c := range s.conns {
		if c.cfg.Name == host {
			return c.post(ctx, wire.RouteAttachedSwitch, wire.AttachedSwitch{Socket: socket, Pane: pane})
		}
	}
	return fmt.Errorf("no host named %q in [[hosts]]", host)
}

// post sends one POST to the host's daemon through a bridge of its own, run over the
// ControlMaster (a new session on the connection that is up, no second login).
func (c *Conn) post(ctx context.Context, route string, body any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.ssh, OneShotArgs(c.cfg, c.ctl, "bridge")...)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 2 * time.Second
	cmd.Stdin = strings.NewReader(fmt.Sprintf("POST %s HTTP/1.1\r\nHost: trailboss\r\nUser-Agent: trailboss-hub\r\n"+
		"Content-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", route, len(b), b))
	var out bytes.Buffer
	stderr := &lastLine{}
	cmd.Stdout, cmd.Stderr = &out, stderr
	runErr := cmd.Run()
	resp, err := http.ReadResponse(bufio.NewReader(&out), nil)
	if err != nil {
		if why := stderr.String(); why != "" {
			return fmt.Errorf("%s: %s", c.cfg.Name, why)
		}
		if runErr != nil {
			return fmt.Errorf("%s: ssh: %w", c.cfg.Name, runErr)
		}
		return fmt.Errorf("%s: read the remote daemon's answer: %w", c.cfg.Name, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		var e wire.Error
		_ = json.NewDecoder(io.LimitReader(resp.Body, 4096)).Decode(&e)
		if e.Error == "" {
			e.Error = resp.Status
		}
		return fmt.Errorf("%s's daemon: %s", c.cfg.Name, e.Error)
	}
	return nil
}

// OneShotArgs returns the arguments of an ssh that runs `trailboss VERB` once on c's host:
// through the hub's ControlMaster at ctl when it is up (else a connection of its own), with
// no question asked and nothing forwarded. Doctor's checks and the jump's requests use it.
func OneShotArgs(c Config, ctl, verb string) []string {
	args := []string{"-o", "ControlMaster=no", "-o", "ControlPath=" + ctl, "-o", "BatchMode=yes",
		"-o", "ClearAllForwardings=yes", "-o", "ForwardAgent=no", "-o", "RequestTTY=no"}
	args = append(args, c.Options...)
	args = append(args, "-o", "ConnectTimeout=10")
	return append(args, "--", c.SSH, remoteCommand(c.Command)+" "+verb)
}
