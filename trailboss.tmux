#!/usr/bin/env bash
# Trail Boss as a tmux plugin. TPM runs every *.tmux file of a plugin's folder when tmux
# reads its config (set -g @plugin 'trailboss/trailboss' ... run '~/.tmux/plugins/tpm/tpm').
# This one finds the trailboss binary and lets it bind the keys, add the status segment
# and start the daemon: `trailboss tmux-conf --apply`. The keys follow the tmux options
# @trailboss-next-key (Tab), @trailboss-popup-key (g) and @trailboss-skip-key (S); "none"
# turns one off. @trailboss-status "off" leaves the status line alone; @trailboss-start
# "off" does not start the daemon.

plugin_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

if command -v trailboss >/dev/null 2>&1; then
	bin="$(command -v trailboss)"
elif [ -x "$plugin_dir/bin/trailboss" ]; then
	bin="$plugin_dir/bin/trailboss"
else
	tmux display-message "trailboss: no trailboss binary; build it: cd $plugin_dir && make build (needs Go and gcc)"
	exit 0
fi

# TPM drops what plugins print: show a failure on the status line instead.
if ! out="$("$bin" tmux-conf --apply 2>&1)"; then
	tmux display-message "${out:-trailboss: $bin tmux-conf --apply failed}"
fi
