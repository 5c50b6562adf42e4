package tmuxctl

import (
	"context"
	"fmt"
	"strings"
)

// GlobalOption returns the value of a global option (show-options -gqv), "" when unset.
func (s *Server) GlobalOption(ctx context.Context, name string) (string, error) {
	if name == "" || strings.HasPrefix(name, "-") {
		return "", fmt.Errorf("%w: option name %q", ErrInvalidTarget, clip(name))
	}
	out, err := s.run(ctx, "show-options", "-gqv", arg(name))
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(out, "\n"), nil
}
