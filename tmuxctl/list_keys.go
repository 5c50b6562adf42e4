package tmuxctl

import (
	"context"
	"fmt"
	"strings"
)

// ListKeys returns the bindings of a key table as tmux prints them, one per line.
func (s *Server) ListKeys(ctx context.Context, table string) ([]string, error) {
	if table == "" || strings.HasPrefix(table, "-") {
		return nil, fmt.Errorf("%w: key table %q", ErrInvalidTarget, clip(table))
	}
	out, err := s.run(ctx, "list-keys", "-T", arg(table))
	if err != nil {
		return nil, err
	}
	return strings.Split(strings.TrimRight(out, "\n"), "\n"), nil
}
