package tmuxctl

import (
	"context"
	"fmt"
	"strings"
)

// ListKeys returns the bindings of a key table as tmux prints them, one per line; with a
// key, only that key's binding (none when it is not bound).
func (s *Server) ListKeys(ctx context.Context, table string, key ...string) ([]string, error) {
	if table == "" || strings.HasPrefix(table, "-") {
		return nil, fmt.Errorf("%w: key table %q", ErrInvalidTarget, clip(table))
	}
	args := []string{"list-keys", "-T", arg(table)}
	for _, k := range key {
		args = append(args, arg(k))
	}
	out, err := s.run(ctx, args...)
	if err != nil {
		if len(key) > 0 && strings.Contains(err.Error(), "unknown key") {
			return nil, nil
		}
		return nil, err
	}
	out = strings.TrimRight(out, "\n")
	if out == "" {
		return nil, nil
	}
	return strings.Split(out, "\n"), nil
}

// UnbindKey removes key's binding from a key table.
func (s *Server) UnbindKey(ctx context.Context, table, key string) error {
	if table == "" || strings.HasPrefix(table, "-") || key == "" {
		return fmt.Errorf("%w: key %q in table %q", ErrInvalidTarget, clip(key), clip(table))
	}
	_, err := s.run(ctx, "unbind-key", "-T", arg(table), arg(key))
	return err
}
