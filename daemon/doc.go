// Package daemon is Trail Boss's core: the engine that keeps the queue and its prompt
// records (engine.go, prompts.go), the ingestor that turns every harness's events into it
// (ingest.go, with the one registry of harnesses in harnesses.go), the spool drain, the
// holds of hooks waiting for an answer, and Core, what the HTTP face (package httpapi)
// reaches. Its watchers are package watch, delivery package deliver; cmd/trailboss wires
// them all together (daemon.go there).
package daemon
