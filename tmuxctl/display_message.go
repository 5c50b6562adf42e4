package tmuxctl

import (
	"context"
	"strings"
)

// DisplayMessage shows msg, as plain text, on the status line of client, or of the client
// tmux picks when client is "". tmux 3.3a silently shows nothing, and reports success,
// when client is not attached.
func (s *Server) DisplayMessage(ctx context.Context, client, msg string) error {
	args := []string{"display-message"}
	if client != "" {
		if err := checkClient(client); err != nil {
			return err
		}
		args = append(args, "-c", arg(client))
	}
	args = append(args, "--", arg(literalMessage(msg)))
	_, err := s.run(ctx, args...)
	return err
}

// literalMessage escapes msg so that display-message shows it as written. tmux passes a
// message through strftime ("%H" becomes the hour) and then expands it as a format
// ("#{pane_id}", "#(cmd)" runs a command); "%%" and "##" are the escapes. Style markup
// ("#[fg=red]") in the expanded text is not interpreted in a status message.
func literalMessage(msg string) string {
	return strings.NewReplacer("#", "##", "%", "%%").Replace(msg)
}
