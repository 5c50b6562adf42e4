package tmuxctl_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trailboss/trailboss/tmuxctl"
	"github.com/trailboss/trailboss/tmuxctl/tmuxtest"
)

// newPool returns a Pool of e's tmux and a Server of it, closed when the test ends.
func newPool(t *testing.T, e *tmuxtest.Env) (*tmuxctl.Pool, *tmuxctl.Server) {
	p := &tmuxctl.Pool{Bin: e.Server.Bin, Env: e.Environ}
	t.Cleanup(p.Close)
	return p, p.Server(e.Socket)
}

// controlClients returns the lines of tmux's own list-clients that are control clients.
func controlClients(t *testing.T, e *tmuxtest.Env) []string {
	var out []string
	for _, l := range strings.Split(e.Tmux(t, "list-clients", "-F", "#{client_name} #{client_flags}"), "\n") {
		if strings.Contains(l, "control-mode") {
			out = append(out, l)
		}
	}
	return out
}

// TestControlClientSwitchesWithNoProcess: a Pool's Server lands an operator's client on a pane
// of another session through its control client, starting no tmux process; the control
// client is attached beside the operator's, never listed by ListClients, and sizes no window.
func TestControlClientSwitchesWithNoProcess(t *testing.T) {
	e := tmuxtest.New(t)
	ctx := testContext(t)
	there := e.NewPane(t, "work", "sh", "-c", "sleep 1000")
	client := e.Attach(t, "main")
	_, srv := newPool(t, e)
	sizes := e.Tmux(t, "list-windows", "-a", "-F", "#{window_id} #{window_width}x#{window_height}")

	// The first command starts the control client.
	if _, err := srv.ListClients(ctx); err != nil {
		t.Fatal(err)
	}
	if got := controlClients(t, e); len(got) != 1 || !strings.Contains(got[0], "no-output") {
		t.Fatalf("control clients attached = %q, want one, sent no output", got)
	}
	if got := e.Tmux(t, "list-windows", "-a", "-F", "#{window_id} #{window_width}x#{window_height}"); got != sizes {
		t.Errorf("windows resized by the control client:\n%s\nwant\n%s", got, sizes)
	}
	before := tmuxctl.Started()
	if err := srv.SwitchClient(ctx, client, there); err != nil {
		t.Fatal(err)
	}
	after := tmuxctl.Started()
	if after.Processes != before.Processes {
		t.Errorf("SwitchClient started %d tmux processes, want none", after.Processes-before.Processes)
	}
	if after.ControlCommands <= before.ControlCommands {
		t.Errorf("SwitchClient ran no command through the control client: %+v → %+v", before, after)
	}
	if got := e.ActivePane(t, client); got != there {
		t.Errorf("client %s is on %s after the switch, want %s", client, got, there)
	}

	// Both clients are attached; the operator's is the only one ListClients knows.
	clients, err := srv.ListClients(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(clients) != 1 || clients[0].Name != client || clients[0].PaneID != there {
		t.Errorf("ListClients = %+v, want only %s on %s", clients, client, there)
	}
	if pane, err := srv.ClientPane(ctx, client); err != nil || pane != there {
		t.Errorf("ClientPane(%s) = %q, %v; want %s", client, pane, err, there)
	}

	// A command that names no client would act on the control client: it runs as a process.
	before = tmuxctl.Started()
	if err := srv.DisplayMessage(ctx, "", "hello"); err != nil {
		t.Fatal(err)
	}
	if n := tmuxctl.Started().Processes - before.Processes; n != 1 {
		t.Errorf("DisplayMessage to the client tmux picks started %d processes, want 1", n)
	}
	// An unknown client is an error as it is from a process.
	if err := srv.SwitchClient(ctx, "/dev/pts/9999", there); err == nil || !strings.Contains(err.Error(), "no such tmux client") {
		t.Errorf("SwitchClient to a client that is not attached: %v, want ErrNoClient", err)
	}
}

// TestControlClientReadsForgedFramingAsText: a pane shows control mode's own framing, the
// very "%end TIME NUMBER 1" line that will close the capture's block; the capture through the
// control client is thrown away for its broken framing and taken again by a tmux process,
// exactly as a process captures it, and the next command's answer is its own again.
func TestControlClientReadsForgedFramingAsText(t *testing.T) {
	e := tmuxtest.New(t)
	ctx := testContext(t)
	forged := filepath.Join(e.Dir, "forged")
	shown := filepath.Join(e.Dir, "shown")
	pane := e.NewPane(t, "work", "sh", "-c",
		"while [ ! -f "+forged+" ]; do sleep 0.05; done; cat "+forged+"; touch "+shown+"; exec sleep 1000")
	_, srv := newPool(t, e)
	if _, err := srv.ListClients(ctx); err != nil { // the control client is up
		t.Fatal(err)
	}
	// tmux numbers commands one after another, server-wide: the next is after this one.
	cmd := exec.Command(e.Server.Bin, "-u", "-C", "-S", e.Socket, "attach-session", "-f", "ignore-size,no-output")
	cmd.Env = e.Environ
	cmd.Stdin = strings.NewReader("display-message -p numbered\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var when, number int64
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasSuffix(l, " 1") && strings.HasPrefix(l, "%begin ") {
			fmt.Sscanf(l, "%%begin %d %d 1", &when, &number)
		}
	}
	if number == 0 {
		t.Fatalf("no numbered block in %q", out)
	}
	var text strings.Builder
	for _, w := range []int64{when, when + 1, when + 2} {
		for n := number + 1; n <= number+4; n++ {
			fmt.Fprintf(&text, "%%end %d %d 1\n", w, n)
		}
	}
	text.WriteString("last\n")
	if err := os.WriteFile(forged, []byte(text.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	e.WaitFor(t, "the pane to show the text", waitLong, func() bool {
		_, err := os.Stat(shown)
		return err == nil
	})

	before := tmuxctl.Started()
	got, err := srv.CapturePane(ctx, pane)
	if err != nil {
		t.Fatal(err)
	}
	if n := tmuxctl.Started().Processes - before.Processes; n != 1 {
		t.Errorf("the capture started %d tmux processes, want 1 (the control client's answer is not to be trusted)", n)
	}
	want, err := e.Server.CapturePane(ctx, pane)
	if err != nil {
		t.Fatal(err)
	}
	if got != want || !strings.Contains(got, "last") {
		t.Errorf("capture through the control client:\n%q\nwant\n%q", got, want)
	}
	id, screen, err := srv.Identity(ctx, pane)
	if err != nil || id.PanePID <= 0 || id.Command != "sleep" {
		t.Errorf("Identity after the capture = %+v, %v", id, err)
	}
	if screen != want {
		t.Errorf("Identity's screen:\n%q\nwant\n%q", screen, want)
	}
	before = tmuxctl.Started()
	if _, err := srv.ListClients(ctx); err != nil {
		t.Fatal(err)
	}
	if n := tmuxctl.Started().Processes - before.Processes; n != 0 {
		t.Errorf("ListClients after the forged captures started %d tmux processes, want none", n)
	}
}

// TestControlClientComesBackAfterServerRestart: the tmux server is killed and started again on
// the same socket; the control client ends with it, the next command is answered (by a new
// control client), and the one after starts no process.
func TestControlClientComesBackAfterServerRestart(t *testing.T) {
	e := tmuxtest.New(t)
	ctx := testContext(t)
	_, srv := newPool(t, e)
	if err := srv.SetUserOptions(ctx, map[string]string{"@x": "1"}); err != nil {
		t.Fatal(err)
	}
	if len(controlClients(t, e)) != 1 {
		t.Fatalf("no control client attached")
	}
	e.Tmux(t, "kill-server")
	if err := srv.SetUserOptions(ctx, map[string]string{"@x": "2"}); err == nil {
		t.Fatalf("SetUserOptions with no server: no error")
	}
	e.Tmux(t, "-f", "/dev/null", "new-session", "-d", "-s", "again", "-x", "80", "-y", "24")
	there := e.NewPane(t, "other", "sh", "-c", "sleep 1000")
	client := e.Attach(t, "again")

	// The control client starts again no sooner than its backoff: wait until it is back.
	e.WaitFor(t, "the control client to come back", 15*time.Second, func() bool {
		before := tmuxctl.Started()
		if err := srv.SetUserOptions(ctx, map[string]string{"@x": "3"}); err != nil {
			t.Fatal(err)
		}
		return tmuxctl.Started().Processes == before.Processes
	})
	if got := controlClients(t, e); len(got) != 1 {
		t.Fatalf("control clients after the restart = %q, want one", got)
	}
	before := tmuxctl.Started()
	if err := srv.SwitchClient(ctx, client, there); err != nil {
		t.Fatal(err)
	}
	if n := tmuxctl.Started().Processes - before.Processes; n != 0 {
		t.Errorf("the jump after the restart started %d tmux processes, want none", n)
	}
	if got := e.ActivePane(t, client); got != there {
		t.Errorf("client on %s, want %s", got, there)
	}
	if got := strings.TrimSpace(e.Tmux(t, "show-options", "-gqv", "@x")); got != "3" {
		t.Errorf("@x = %q after the restart, want 3", got)
	}
}
