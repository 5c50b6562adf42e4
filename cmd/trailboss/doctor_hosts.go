package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/trailboss/trailboss/daemon/hosts"
	"github.com/trailboss/trailboss/daemon/wire"
)

// hostsChecks checks each [[hosts]] entry as the hub would reach it: ssh gets in, Trail Boss
// is there (and which version), its daemon answers through the bridge. The hosts are checked
// at once, each within hostCheckTimeout.
func (d *doctor) hostsChecks(ctx context.Context) []finding {
	cfg, err := loadConfig(d.getenv)
	if err != nil || len(cfg.Hosts) == 0 {
		return nil
	}
	hs := hostConfigs(cfg.Hosts)
	out := make([][]finding, len(hs))
	var wg sync.WaitGroup
	for i, h := range hs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = d.hostCheck(ctx, h)
		}()
	}
	wg.Wait()
	var all []finding
	for _, f := range out {
		all = append(all, f...)
	}
	return all
}

// hostCheckTimeout bounds each ssh that doctor runs.
const hostCheckTimeout = 15 * time.Second

// hostCheck checks one host: `trailboss version` there, then GET /healthz through its bridge.
func (d *doctor) hostCheck(ctx context.Context, h hosts.Config) []finding {
	ctl := hosts.ControlPath(d.place.StateDir, h.Name)
	name := "host " + h.Name
	stdout, why, code := runSSH(ctx, hosts.OneShotArgs(h, ctl, "version"), "")
	command := h.Command
	if command == "" {
		command = "trailboss"
	}
	switch {
	case code == 255:
		return []finding{{level: bad, what: name + ": ssh " + h.SSH + " does not get in: " + why,
			fix: "make `ssh " + h.SSH + " true` work without a question (a key in your agent or ~/.ssh/config), then run doctor again"}}
	case code == 127:
		return []finding{{level: bad, what: name + ": ssh gets in, but " + command + " is not there",
			fix: "install Trail Boss on " + h.Name + ", or set command = \"/path/to/trailboss\" in its [[hosts]] entry"}}
	case code != 0:
		return []finding{{level: bad, what: name + ": " + command + " version failed there: " + why,
			fix: "run `ssh " + h.SSH + " " + command + " version` and fix what it says"}}
	}
	remote := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(stdout), "trailboss"))
	out := []finding{{level: good, what: name + ": ssh gets in; Trail Boss " + remote + " there"}}
	get := "GET /healthz HTTP/1.1\r\nHost: trailboss\r\nUser-Agent: trailboss-doctor\r\nConnection: close\r\n\r\n"
	stdout, why, _ = runSSH(ctx, hosts.OneShotArgs(h, ctl, "bridge"), get)
	resp, err := http.ReadResponse(bufio.NewReader(strings.NewReader(stdout)), nil)
	var health wire.Health
	if err == nil {
		_ = json.NewDecoder(io.LimitReader(resp.Body, 4096)).Decode(&health)
		resp.Body.Close()
	}
	switch {
	case err != nil:
		if why == "" {
			why = "it answered nothing"
		}
		out = append(out, finding{level: bad, what: name + ": its daemon does not answer: " + why,
			fix: "start it there: ssh " + h.SSH + " " + command + " start"})
	case resp.StatusCode != http.StatusOK:
		out = append(out, finding{level: bad, what: name + ": its daemon answered " + resp.Status,
			fix: "restart it there: ssh " + h.SSH + " '" + command + " stop && " + command + " start'"})
	case health.Protocol != wire.Protocol:
		// What the hub says of it too (hosts.versionError).
		theirs := health.Version
		if theirs == "" {
			theirs = "of unknown version"
		}
		msg := h.Name + " runs Trail Boss " + theirs + ", this hub runs " + version + ": left out until both run the same version"
		if theirs == version {
			msg += fmt.Sprintf(" (its protocol is %d, this hub's %d)", health.Protocol, wire.Protocol)
		}
		out = append(out, finding{level: bad, what: name + ": " + msg,
			fix: "install the same Trail Boss on " + h.Name + " as here (or here as there), then restart both daemons"})
	default:
		out = append(out, finding{level: good, what: name + ": its daemon runs, and answers through trailboss bridge"})
	}
	return out
}

// runSSH runs ssh with args and stdin, and returns what it printed, the last line of its
// standard error, and its exit code (-1 when it did not run).
func runSSH(ctx context.Context, args []string, stdin string) (stdout, why string, code int) {
	ctx, cancel := context.WithTimeout(ctx, hostCheckTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "ssh", args...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	lines := strings.Split(strings.TrimSpace(errOut.String()), "\n")
	why = strings.TrimSpace(lines[len(lines)-1])
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		code, why = -1, fmt.Sprintf("run ssh: %v", err)
	}
	if ctx.Err() != nil {
		why = fmt.Sprintf("no answer within %v", hostCheckTimeout)
	}
	return out.String(), why, code
}
