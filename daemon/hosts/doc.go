// Package hosts is a hub's view of other machines' queues (issue 30): for each [[hosts]]
// entry of config.toml, one connection manager (Conn) runs the operator's own `ssh` — their
// ssh_config, keys and agent, never an SSH library of ours — as a ControlMaster whose socket
// is in the state directory, with `trailboss bridge` as its remote command. Through that
// bridge it speaks the remote daemon's HTTP: a health check (the round trip), then
// GET /v1/queue/stream, on which the remote daemon pushes its queue at once and after every
// change. The hub never polls, opens no port, and holds no remote token: the remote daemon
// serves a bridge of its own user without one (SECURITY.md).
//
// Why one long-lived bridge per host rather than `ssh -L` of the remote socket: the bridge
// works whatever the server's AllowStreamLocalForwarding says, needs no local socket file
// that another local process could connect to, and its death is the connection's death (the
// stream ends), which is how a drop is seen at once. The ControlMaster is there for the
// sessions that come later on the same connection (the jump to a remote pane, answers).
//
// When ssh ends, the host is unreachable since then, with ssh's own last line as the reason;
// its items stay, marked stale; the manager reconnects with a short backoff, or, while ssh
// cannot reach the server at all, as soon as the server's port takes a connection again
// (probe.go).
package hosts
