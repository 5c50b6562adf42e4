package tmuxctl

import (
	"context"
	"fmt"
	"strings"
)

// Version returns the version tmux -V reports, without the "tmux " before it: "3.3a",
// "next-3.4". It needs no running server.
func (s *Server) Version(ctx context.Context) (string, error) {
	out, err := s.run(ctx, "-V")
	if err != nil {
		return "", err
	}
	v, err := parseVersion(out)
	if err != nil {
		return "", fmt.Errorf("tmux -V: %w", err)
	}
	return v, nil
}

// parseVersion parses the output of tmux -V: "tmux 3.3a\n".
func parseVersion(out string) (string, error) {
	v, ok := strings.CutPrefix(strings.TrimSpace(out), "tmux ")
	if !ok || v == "" || strings.ContainsAny(v, " \t\n") {
		return "", fmt.Errorf("unexpected version output %q", clip(out))
	}
	return v, nil
}
