package tmuxctl

import "context"

// SourceConfig runs tmux config lines on the server, as `source-file -` reading them from
// standard input (tmux 3.2 and later), so no temporary file is needed.
func (s *Server) SourceConfig(ctx context.Context, conf string) error {
	_, err := s.runInput(ctx, conf, "source-file", "-")
	return err
}
