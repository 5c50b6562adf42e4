package tmuxctl

import (
	"context"
	"fmt"
	"strings"
)

// SetGlobalOption sets a global option (set-option -g).
func (s *Server) SetGlobalOption(ctx context.Context, name, value string) error {
	if name == "" || strings.HasPrefix(name, "-") {
		return fmt.Errorf("%w: option name %q", ErrInvalidTarget, clip(name))
	}
	_, err := s.run(ctx, "set-option", "-g", "--", arg(name), arg(value))
	return err
}
