package install

// Planning a setup: each file setup writes is read and planned first (so that an unreadable
// file changes nothing at all), then printed (--dry-run) or written. An install keeps the
// original beside the file (BackupSuffix) the first time; an undo takes out exactly what
// was added, and gives back the original's very bytes when nothing else changed since.

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// BackupSuffix names the copy of a file that setup keeps from before its first install. An
// empty backup means there was no file.
const BackupSuffix = ".trailboss-backup"

// Change is one file setup writes (or removes), and what to say about it.
type Change struct {
	Path       string
	Old, New   []byte
	Existed    bool
	Mode       fs.FileMode
	Remove     bool   // delete the file instead of writing New
	RemoveDir  string // and then this folder, when it is empty
	SaveBackup string // install: keep Old here first (empty: there was no file)
	DropBackup string // undo: delete this backup after
	Unchanged  bool   // nothing to do
	Said       string // what was done, for the summary
}

// Read returns the change of the file at path, not planned yet: what it holds now, and
// the mode a new file gets (mode, when it does not exist).
func Read(path string, mode fs.FileMode) (*Change, error) {
	old, perm, existed, err := readIfExists(path)
	if err != nil {
		return nil, err
	}
	c := &Change{Path: path, Old: old, Existed: existed, Mode: perm}
	if !existed {
		c.Mode = mode
	}
	return c, nil
}

// readIfExists returns the file's bytes and mode, and whether it exists.
func readIfExists(path string) ([]byte, fs.FileMode, bool, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, false, nil
	}
	if err != nil {
		return nil, 0, false, err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, 0, false, err
	}
	return b, fi.Mode().Perm(), true, nil
}

// KeepOriginal has an install keep the file as it was, unless a backup is there already
// (the first install's, which later ones keep), and says so after installed.
func (c *Change) KeepOriginal(installed string) {
	c.Said = installed
	backup := c.Path + BackupSuffix
	if _, err := os.Stat(backup); err == nil {
		return
	}
	c.SaveBackup = backup
	if c.Existed {
		c.Said += "; the original is kept as " + backup
	}
}

// Backup reads, for an undo, the original the first install kept, and has the undo delete
// it. ok is false when there is none.
func (c *Change) Backup() (saved []byte, ok bool, err error) {
	backup := c.Path + BackupSuffix
	saved, _, ok, err = readIfExists(backup)
	if ok {
		c.DropBackup = backup
	}
	return saved, ok, err
}

// NothingToUndo says the undo finds nothing of ours in the file: only a leftover backup,
// if there is one, goes.
func (c *Change) NothingToUndo(said string) {
	c.Unchanged, c.Said = c.DropBackup == "", said
	if c.DropBackup != "" {
		c.Said += " (removed the leftover " + c.DropBackup + ")"
	}
}

// Notes says what happens to the backup, for --dry-run.
func (c *Change) Notes() string {
	switch {
	case c.SaveBackup != "" && c.Existed:
		return "  (and keep the original as " + c.SaveBackup + ")\n"
	case c.SaveBackup != "":
		return "  (and write an empty " + c.SaveBackup + ": there was no file)\n"
	case c.DropBackup != "":
		return "  (and delete the backup " + c.DropBackup + ")\n"
	case c.RemoveDir != "":
		return "  (and the folder " + c.RemoveDir + " once it is empty: setup made it)\n"
	}
	return ""
}

// Write makes the change on disk: the backup first, then the file (atomically), then the
// retired backup goes.
func (c *Change) Write() error {
	if c.Unchanged {
		return nil
	}
	if c.SaveBackup != "" {
		if err := os.MkdirAll(filepath.Dir(c.SaveBackup), 0o700); err != nil {
			return err
		}
		if err := writeAtomic(c.SaveBackup, c.Old, c.Mode); err != nil {
			return fmt.Errorf("keep a backup: %w", err)
		}
	}
	switch {
	case c.Remove:
		if err := os.Remove(c.Path); err != nil {
			return err
		}
	case c.Existed && !bytes.Equal(c.New, c.Old), !c.Existed && c.New != nil:
		if err := os.MkdirAll(filepath.Dir(c.Path), 0o700); err != nil {
			return err
		}
		if err := writeAtomic(c.Path, c.New, c.Mode); err != nil {
			return err
		}
	}
	if c.DropBackup != "" {
		if err := os.Remove(c.DropBackup); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	if c.RemoveDir != "" {
		_ = os.Remove(c.RemoveDir) // fails, as it should, when something else is in it
	}
	return nil
}

// writeAtomic replaces path with data: a temp file in the same folder, then a rename, so a
// crash leaves the old file or the new one, never half of one. A symlink (dotfiles) is
// followed: its target is replaced and the link stays.
func writeAtomic(path string, data []byte, mode fs.FileMode) error {
	if target, err := filepath.EvalSymlinks(path); err == nil {
		path = target
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after a successful rename, there is nothing left to remove
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// PlanClaude plans Claude Code's settings.json at path: Trail Boss's hooks, running
// command, added; or, undo, taken out.
func PlanClaude(path, command string, undo bool) (*Change, error) {
	c, err := Read(path, 0o644)
	if err != nil {
		return nil, err
	}
	if !undo {
		if c.New, err = Install(c.Old, command); err != nil {
			return nil, fmt.Errorf("%s: %w (nothing was changed)", path, err)
		}
		if bytes.Equal(c.New, c.Old) && c.Existed {
			c.Unchanged, c.Said = true, "✓ Claude Code hooks already set up in "+path
			return c, nil
		}
		if len(Installed(c.Old, command)) == len(Events()) {
			// An older setup's hooks, brought up to date in place (PermissionRequest made
			// synchronous, so that it can hold for a delivered answer). The file is not the
			// original from before setup: it is no backup.
			c.Said = "✓ Claude Code hooks updated in " + path
			return c, nil
		}
		c.KeepOriginal(fmt.Sprintf("✓ Claude Code hooks added to %s (%d events)", path, len(Events())))
		return c, nil
	}

	return planUndo(c, path, settingsUndo{
		name:      "Claude Code",
		nothing:   "✓ no Claude Code settings at " + path + ": nothing to undo",
		uninstall: func(b []byte) ([]byte, error) { return Uninstall(b, command) },
		same:      func(now, saved []byte) bool { return sameAsBefore(now, saved, command) },
	})
}

// settingsUndo is what taking Trail Boss's hooks out of one harness's JSON settings needs:
// its name for the words, what to say when there is no file, how to take the hooks out,
// and when what is left is the same as the settings before setup.
type settingsUndo struct {
	name, nothing string
	uninstall     func([]byte) ([]byte, error)
	same          func(now, saved []byte) bool
}

// planUndo plans taking the hooks out of c, a harness's settings at path: the original's
// very bytes given back when nothing else changed since setup, the file removed when setup
// created it and nothing else was put in it since, otherwise every other byte kept.
func planUndo(c *Change, path string, u settingsUndo) (*Change, error) {
	saved, hasBackup, err := c.Backup()
	if err != nil {
		return nil, err
	}
	if !c.Existed {
		c.NothingToUndo(u.nothing)
		return c, nil
	}
	if c.New, err = u.uninstall(c.Old); err != nil {
		return nil, fmt.Errorf("%s: %w (nothing was changed)", path, err)
	}
	how := "took out Trail Boss's hooks, kept everything else"
	switch {
	case hasBackup && len(saved) == 0 && SameJSON(c.New, []byte("{}")):
		c.Remove = true // setup created the file and nothing else was put in it since
	case hasBackup && u.same(c.New, saved):
		c.New = saved // the same settings as before setup: give back their very bytes
		how = "restored the original byte for byte"
	}
	switch {
	case c.Remove:
		c.Said = "✓ removed " + path + " (setup had created it)"
	case bytes.Equal(c.New, c.Old):
		c.NothingToUndo("✓ no Trail Boss hooks in " + path)
	default:
		c.Said = "✓ " + u.name + " hooks removed from " + path + " (" + how + ")"
	}
	return c, nil
}

// sameAsBefore reports whether settings without our hooks hold what saved held before
// setup: the same JSON, or the same as saved after an install and uninstall of its own
// (which drop an empty "hooks" or event list that was there before).
func sameAsBefore(now, saved []byte, command string) bool {
	if SameJSON(now, saved) {
		return true
	}
	in, err := Install(saved, command)
	if err != nil {
		return false
	}
	out, err := Uninstall(in, command)
	return err == nil && SameJSON(now, out)
}

// PlanTmux plans the tmux config at path: Trail Boss's block for the program bin, added or
// brought up to date; or, undo, taken out.
func PlanTmux(path, bin string, undo bool) (*Change, error) {
	c, err := Read(path, 0o644)
	if err != nil {
		return nil, err
	}
	if !undo {
		if c.New, err = AddTmuxBlock(c.Old, TmuxBlock(bin)); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		switch {
		case bytes.Equal(c.New, c.Old):
			c.Unchanged, c.Said = true, "✓ tmux block already in "+path
		case HasTmuxBlock(c.Old):
			c.Said = "✓ tmux: updated the trailboss block in " + path
		default:
			c.Said = "✓ tmux: added a trailboss block to " + path + " (keys prefix Tab, g, S; status segment); tmux applies it when it starts"
		}
		return c, nil
	}
	var found bool
	if c.New, found, err = RemoveTmuxBlock(c.Old); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	switch {
	case !found:
		c.Unchanged, c.Said = true, "✓ no trailboss block in "+path
	case len(c.New) == 0:
		c.Remove, c.Said = true, "✓ tmux: removed "+path+" (it held only the trailboss block)"
	default:
		c.Said = "✓ tmux: removed the trailboss block from " + path
	}
	return c, nil
}
