package install

import (
	"bytes"
	"strings"
	"testing"
)

func TestTmuxBlockRoundTrip(t *testing.T) {
	block := TmuxBlock("trailboss")
	for _, conf := range []string{
		"",
		"set -g mouse on\n",
		"set -g mouse on",
		"set -g mouse on\n\n",
		"\n",
		"# >>> trailboss >>> is only a marker at the start of a line\n  # >>> trailboss >>>\n",
		"run '~/.tmux/plugins/tpm/tpm'\n",
	} {
		added, err := AddTmuxBlock([]byte(conf), block)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(added, []byte(conf)) || !bytes.Contains(added, []byte(strings.TrimSuffix(block, "\n"))) {
			t.Errorf("%q: added = %q", conf, added)
		}
		if again, _ := AddTmuxBlock(added, block); !bytes.Equal(again, added) {
			t.Errorf("%q: adding twice changed it: %q", conf, again)
		}
		back, found, err := RemoveTmuxBlock(added)
		if err != nil || !found {
			t.Fatalf("%q: remove: found=%v err=%v", conf, found, err)
		}
		if string(back) != conf {
			t.Errorf("%q: round trip gave %q", conf, back)
		}
		// Lines the user adds after the block stay when it goes.
		withMore := append(bytes.Clone(added), "\nset -g history-limit 5000\n"...)
		if bytes.HasSuffix(added, []byte("\n")) {
			withMore = append(bytes.Clone(added), "set -g history-limit 5000\n"...)
		}
		rest, _, _ := RemoveTmuxBlock(withMore)
		if !bytes.Contains(rest, []byte("set -g history-limit 5000\n")) || bytes.Contains(rest, []byte("trailboss tmux-conf")) {
			t.Errorf("%q: with a line after the block, removal gave %q", conf, rest)
		}
	}
}

func TestTmuxBlockReplacedWhenTheBinaryMoved(t *testing.T) {
	conf := "set -g mouse on\n" + TmuxBlock("/old/trailboss") + "bind r source-file ~/.tmux.conf\n"
	got, err := AddTmuxBlock([]byte(conf), TmuxBlock("trailboss"))
	if err != nil {
		t.Fatal(err)
	}
	want := "set -g mouse on\n" + TmuxBlock("trailboss") + "bind r source-file ~/.tmux.conf\n"
	if string(got) != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestTmuxBlockWithoutEnd(t *testing.T) {
	conf := []byte("set -g mouse on\n# >>> trailboss >>>\nrun-shell \"trailboss tmux-conf --apply\"\n")
	if _, err := AddTmuxBlock(conf, TmuxBlock("trailboss")); err == nil || !strings.Contains(err.Error(), "no end marker") {
		t.Errorf("add: %v", err)
	}
	if _, _, err := RemoveTmuxBlock(conf); err == nil {
		t.Error("remove: no error")
	}
}

func TestTmuxBlockLine(t *testing.T) {
	if got := TmuxBlock("'/my dir/trailboss'"); !strings.Contains(got, "\nrun-shell \"'/my dir/trailboss' tmux-conf --apply\"\n") {
		t.Errorf("got:\n%s", got)
	}
}
