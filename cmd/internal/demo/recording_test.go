package demo

import (
	"encoding/xml"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
)

// TestDemoSVGShowsAnAnswerFromThePopup reads the README's recording, docs/demo.svg (made by
// make recording from the real demo), or the one TRAILBOSS_DEMO_SVG names (make
// recording-check, CI: one just made): it must be well-formed SVG, animated, and show the
// story it is there to tell: the status line counting three stuck agents, the popup
// offering Allow, the agent taking the answer, and the count dropping to two.
func TestDemoSVGShowsAnAnswerFromThePopup(t *testing.T) {
	path := os.Getenv("TRAILBOSS_DEMO_SVG")
	if path == "" {
		path = "../../../docs/demo.svg"
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("the recording: %v (make recording makes it)", err)
	}
	defer f.Close()
	root, lines, animated, err := svgLines(f)
	if err != nil {
		t.Fatalf("%s is not well-formed XML: %v", path, err)
	}
	if root != "svg" {
		t.Fatalf("%s: the root element is <%s>, not <svg>", path, root)
	}
	if !animated {
		t.Errorf("%s has no @keyframes: a still picture, not a recording", path)
	}
	all := strings.Join(lines, "\n")
	var missing []string
	for _, want := range []string{
		// The status line counts them (how many it shows first depends on how soon the
		// client attached; the script waits for three before its first key).
		"| 0:welcome* 1:api 2:web 3:infra 9:daemon ⚠ 3 stuck",
		"Trail Boss ⚠ 3 stuck", // the popup, three waiting
		"a Allow · x Deny",     // it offers the answer
		"Allow sent to trailboss-demo:1 — typed into the pane; the agent took it.",
		"Trail Boss ⚠ 2 stuck",                                 // one fewer
		"| 0:welcome- 1:api* 2:web 3:infra 9:daemon ⚠ 2 stuck", // the status line too
		"more waiting · next: ",                                // the focus view's status line: the queue beside the head's window
		"● The dark-mode toggle works. Should it follow the system setting by default?", // the next, in the focus view
	} {
		if !strings.Contains(all, want) {
			missing = append(missing, want)
		}
	}
	if len(missing) > 0 {
		t.Errorf("%s never shows:\n  %s\nwhat it shows, line by line:\n%s", path, strings.Join(missing, "\n  "), all)
	}
}

// svgLines reads an SVG that svg-term-cli wrote and returns its root element's name, each
// terminal line it draws (svg-term draws a line as one <text> a word, in a <symbol> or a
// frame, all at one y), whether it has CSS keyframes, and an error when it is not
// well-formed XML.
func svgLines(r io.Reader) (root string, lines []string, animated bool, err error) {
	d := xml.NewDecoder(r)
	var line []string
	var y, style string
	inText, inStyle := false, false
	flush := func() {
		if len(line) > 0 {
			lines = append(lines, strings.Join(line, " "))
		}
		line = nil
	}
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			flush()
			return root, lines, strings.Contains(style, "@keyframes"), nil
		}
		if err != nil {
			return "", nil, false, err
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = tok.Name.Local
			}
			switch tok.Name.Local {
			case "text":
				at := ""
				for _, a := range tok.Attr {
					if a.Name.Local == "y" {
						at = a.Value
					}
				}
				if at != y {
					flush()
					y = at
				}
				inText = true
			case "style":
				inStyle = true
			default:
				flush()
				y = ""
			}
		case xml.EndElement:
			inText, inStyle = false, false
			if tok.Name.Local != "text" {
				flush()
				y = ""
			}
		case xml.CharData:
			switch {
			case inText:
				line = append(line, string(tok))
			case inStyle:
				style += string(tok)
			}
		}
	}
}
