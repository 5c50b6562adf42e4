#!/usr/bin/env bash
# make recording: docs/demo.svg, made from the real demo (`trailboss demo`). A real tmux client
# of 100x30 is attached to the demo's private tmux server under asciinema; this script types
# into it, as a person would and at a person's pace, and waits for each screen before the
# next key. svg-term-cli then renders the recording as an animated SVG. Nothing is drawn by
# hand: when the screens change, run it again.
#
#   docs/record-demo.sh SVG_TERM DIR   (make recording): writes DIR/demo.cast and DIR/demo.svg
set -euo pipefail
svgterm=$1 dir=$2
cols=100 rows=30
pause=2.5 # seconds to read a screen; asciinema cuts any longer stillness down to it

mkdir -p "$dir"
work=$(mktemp -d /tmp/trailboss-recording-XXXXXX)
demo=$work/demo sock=$work/demo/tmux.sock
keep= # set when the recording failed: its folder stays, to look at
cleanup() {
  exec 3>&- 2>/dev/null || true
  [ -z "${recorder:-}" ] || kill "$recorder" 2>/dev/null || true
  tmux -S "$sock" kill-server 2>/dev/null || true
  [ -n "$keep" ] || rm -rf "$work"
}
trap cleanup EXIT

# Nothing of the caller's own tmux: the demo's welcome would otherwise explain nesting.
unset TMUX TMUX_PANE
export TERM=xterm-256color LANG=C.UTF-8
# asciinema keeps an install id in its config folder: this one, not the caller's home.
export ASCIINEMA_CONFIG_HOME=$work/asciinema

bin/trailboss demo --no-attach --dir "$demo" >/dev/null
# The demo's windows are made 200x50 and would shrink only when first shown, folding what the
# agents drew at that width: give them the client's size now, before the first one stops.
for w in 0 1 2 3; do
  tmux -S "$sock" resize-window -t "=trailboss-demo:$w" -x $cols -y $((rows - 1))
done

# fail says what went wrong and where to look, and ends the recording.
fail() {
  echo "record-demo: $1; what the client drew is in $work/typescript" >&2
  keep=1
  exit 1
}

# status prints the demo's status segment, "⚠ 3 stuck" ("" when nothing waits).
status() { tmux -S "$sock" show-options -gqv @trailboss_status; }

# wait_for WHAT COMMAND...: run COMMAND every 100 ms until it succeeds; fail after 30 s.
wait_for() {
  local what=$1 deadline=$((SECONDS + 30))
  shift
  until "$@"; do
    [ $SECONDS -lt $deadline ] || fail "gave up waiting for $what"
    sleep 0.1
  done
}
stuck() { [[ "$(status)" == *"$1 stuck"* ]]; }
# focus_window prints the window the client shows in its focus view (index:id), or nothing
# when it is not in one.
focus_window() {
  # The daemon's control client is listed too, attached to the demo's own session
  # (trailboss-demo): only a client that is not one counts.
  tmux -S "$sock" list-clients -F '#{client_control_mode} #{session_name} #{window_index}:#{window_id}' |
    awk '$1 != 1 && $2 ~ /^trailboss-/ && $2 != "trailboss-demo" { print $3; exit }'
}
focus_on_head() { [[ "$(focus_window)" == 1:* ]]; }
focus_moved_from() { local w; w=$(focus_window); [[ "$w" == 1:* && "$w" != "$1" ]]; }
not_in_focus() { [ -z "$(focus_window)" ]; }
# drawn TEXT: the client has drawn TEXT since the last key was pressed (the popup is no
# pane: capture-pane cannot see it, so this reads what the client wrote to its terminal).
drawn() { tail -c +$((typed + 1)) "$work/typescript" | grep -qF "$1"; }
typed=0

# press KEY...: type keys into the client a little apart, as fingers do (C-b is the prefix).
press() {
  typed=$(stat -c %s "$work/typescript")
  for k in "$@"; do
    case $k in
      C-b) printf '\002' >&3 ;;
      Tab) printf '\t' >&3 ;;
      *) printf '%s' "$k" >&3 ;;
    esac
    sleep 0.15
  done
}

# The client: asciinema records a tmux client attached to the demo, in a terminal of its own
# (script(1) makes one: asciinema needs a tty). The keys reach it through a FIFO held open
# here, so that script never reads end-of-file and types ^D. -i caps the idle time.
mkfifo "$work/keys"
script -qfec "stty cols $cols rows $rows; asciinema rec -q --overwrite -i $pause --cols $cols --rows $rows \
  -c 'tmux -S $sock attach-session -t =trailboss-demo' $work/demo.cast" "$work/typescript" \
  <"$work/keys" >/dev/null &
recorder=$!
exec 3>"$work/keys"

# The welcome; the agents stop one after another and the status line counts them.
wait_for "three agents to stop" stuck 3
sleep $pause
# prefix Tab: the client lands on the pane that has waited longest (api, a permission prompt).
press C-b Tab
wait_for "the jump to the api window" drawn "Do you want to proceed?"
sleep $pause
# prefix g: the queue in a popup; a allows the selected one's permission from there.
press C-b g
wait_for "the popup" drawn "REASON"
sleep $pause
press a
wait_for "the answer to be taken" drawn "the agent took it"
wait_for "the count to drop" stuck 2
sleep $pause
press q
sleep $pause
# The focus view: prefix F links the head's window into a session of this client's own,
# the queue on its status line; prefix Tab there links the next one in its place; prefix F
# again leaves, every window back where it was.
press C-b F
wait_for "the focus view" focus_on_head
head=$(focus_window)
sleep $pause
press C-b Tab
wait_for "the next head linked in its place" focus_moved_from "$head"
sleep $pause
press C-b F
wait_for "the focus view left" not_in_focus
sleep $pause
press C-b d
wait "$recorder" || fail "the recorder failed"
recorder=

# The cast ends where the client leaves the screen (the terminal's alternate screen, ?1049l):
# that event keeps its time but draws nothing, so the last picture stays up until the loop
# restarts.
awk '/1049l/ { split($0, f, ","); print f[1] ", \"o\", \"\"]"; exit } { print }' \
  "$work/demo.cast" >"$dir/demo.cast"

"$svgterm" --in "$dir/demo.cast" --out "$dir/demo.svg" --window --no-cursor --width $cols --height $rows
echo "wrote $dir/demo.cast and $dir/demo.svg"
