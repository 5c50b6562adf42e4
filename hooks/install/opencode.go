package install

// Trail Boss's OpenCode plugin: one file that setup writes into OpenCode's plugins folder
// (OpenCode loads every *.js there at start, with no npm install, which stalls offline) and
// that --undo removes. The file is wholly Trail Boss's, so there is nothing to merge: it is
// ours when it starts with OpenCodeMarker, and current when it is what OpenCodePlugin makes
// now.

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
)

//go:embed opencode.js
var openCodePlugin []byte

// OpenCodePluginName is the plugin's file name in OpenCode's plugins folder.
const OpenCodePluginName = "trailboss.js"

// OpenCodeMarker is the first line of the plugin file: the file is Trail Boss's.
const OpenCodeMarker = "// trailboss: Trail Boss's OpenCode plugin, written by `trailboss setup --opencode`; `trailboss setup --opencode --undo` removes it."

// openCodeMadeFolder is the second line of a plugin file for which setup made the plugins
// folder: --undo then removes the folder too, when nothing else is in it.
const openCodeMadeFolder = "// (setup made this folder for it; --undo removes the folder again when it is empty)"

// OpenCodePlugin returns the plugin file that runs bin (the trailboss program, a path or
// "trailboss" from PATH); madeFolder says setup makes the plugins folder for it.
func OpenCodePlugin(bin string, madeFolder bool) []byte {
	word, _ := json.Marshal(bin) // a JavaScript string literal
	var b bytes.Buffer
	b.WriteString(OpenCodeMarker + "\n")
	if madeFolder {
		b.WriteString(openCodeMadeFolder + "\n")
	}
	id, _ := json.Marshal(OpenCodePluginID())
	js := bytes.Replace(openCodePlugin, []byte("__TRAILBOSS__"), word, 1)
	b.Write(bytes.Replace(js, []byte("__PLUGIN_ID__"), id, 1))
	return b.Bytes()
}

// OpenCodePluginID names this version of the plugin: the plugin reports it when OpenCode
// loads it, so doctor can tell an OpenCode that runs an older one.
func OpenCodePluginID() string {
	sum := sha256.Sum256(openCodePlugin)
	return hex.EncodeToString(sum[:6])
}

// IsOpenCodePlugin reports whether b, a plugin file's bytes, is Trail Boss's.
func IsOpenCodePlugin(b []byte) bool {
	return bytes.HasPrefix(b, []byte(OpenCodeMarker+"\n"))
}

// OpenCodePluginMadeFolder reports whether b, Trail Boss's plugin file, says setup made
// its folder.
func OpenCodePluginMadeFolder(b []byte) bool {
	return bytes.HasPrefix(b, []byte(OpenCodeMarker+"\n"+openCodeMadeFolder+"\n"))
}
