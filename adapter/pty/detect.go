package pty

import (
	"bytes"
	"regexp"
	"slices"
	"strings"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/adapter/prompt"
)

// QuestionNoPrompt is the question of the prompt the supervisor reports for a child that
// has been quiet for the stall time with no prompt on its screen (QA-004).
const QuestionNoPrompt = "waiting for input (no prompt text detected)"

// lowConfidence is the classifier's confidence under which a prompt is reported as a
// guess: a line that merely ends in "?" or ":".
const lowConfidence = 0.6

// Excerpt limits: the last few lines of the screen go with every prompt.
const (
	excerptLines = 8
	excerptBytes = 800
)

// detection is what the tail of the output shows.
type detection struct {
	prompt *Prompt // nil when no prompt is recognised
	busy   bool    // a busy indicator ends the screen: the child works
	// excerpt is the last lines of the screen, including the text of an erased prompt
	// line; "" when the screen is blank.
	excerpt string
}

// detect reads the tail of the child's output the way a person would read the screen,
// and returns the prompt it ends with. When the screen's current line is blank but held a
// prompt that was erased before the child went quiet (QA-003: "Delete file? (y/n) " then
// "\r      \r"), it returns that prompt marked low confidence. It is a pure function.
func detect(tail []byte) detection {
	tail = lastBytes(tail, detectBytes)
	screen := prompt.StripANSI(string(tail))
	// The classifier reads the last screenful of what it is given, replaying it first: give
	// it the end of the screen replayed here, not the whole tail to replay again (QA-018).
	res := prompt.Classify(lastLines(screen, classifyLines))
	d := detection{excerpt: excerpt(screen)}
	if res.Kind == prompt.Busy {
		d.busy = true
		return d
	}
	if p, ok := fromResult(res); ok {
		p.Excerpt = d.excerpt
		d.prompt = &p
		return d
	}
	erased := erasedLine(tail)
	if erased == "" {
		return d
	}
	above := ""
	if i := bytes.LastIndexByte(tail, '\n'); i >= 0 {
		above = prompt.StripANSI(string(tail[:i+1]))
	}
	shown := strings.TrimRight(above+"\n"+erased, "\n")
	d.excerpt = excerpt(shown)
	if p, ok := fromResult(prompt.Classify(shown)); ok {
		p.Excerpt, p.LowConfidence = d.excerpt, true
		d.prompt = &p
	}
	return d
}

// detectBytes is how much of the buffer's end detect reads: a screenful of 40 lines even
// when colour escapes make each line several hundred bytes, and a fraction of what
// replaying the whole 64 KiB buffer costs after a flood (QA-018).
const detectBytes = 32 << 10

// lastBytes returns the end of b from the first line that starts in its last n bytes (all
// of b when it is shorter), so that the cut never falls inside a line or an escape.
func lastBytes(b []byte, n int) []byte {
	if len(b) <= n {
		return b
	}
	cut := b[len(b)-n:]
	if i := bytes.IndexByte(cut, '\n'); i >= 0 {
		return cut[i+1:]
	}
	return cut
}

// classifyLines is how many non-blank lines of the screen detect gives the classifier:
// more than the screenful it reads.
const classifyLines = 2 * 40

// lastLines returns screen from its n-th non-blank line from the end (all of it when it
// has fewer).
func lastLines(screen string, n int) string {
	for i := len(screen); i > 0; {
		j := strings.LastIndexByte(screen[:i], '\n') + 1 // the line screen[j:i]
		if strings.TrimSpace(screen[j:i]) != "" {
			if n--; n == 0 {
				return screen[j:]
			}
		}
		if j == 0 {
			break
		}
		i = j - 1
	}
	return screen
}

// reErase splits a line where it was redrawn: a carriage return, or an erase of the line
// or the display.
var reErase = regexp.MustCompile(`\r|\x1b\[[0-9;?]*[KJ]`)

// erasedLine returns the last text that the current line of tail (after its last line
// feed) showed before it was erased, when the line now shows nothing; else "".
func erasedLine(tail []byte) string {
	cur := tail[bytes.LastIndexByte(tail, '\n')+1:]
	if strings.TrimSpace(prompt.StripANSI(string(cur))) != "" {
		return ""
	}
	parts := reErase.Split(string(cur), -1)
	for i := len(parts) - 1; i >= 0; i-- {
		if s := strings.TrimSpace(prompt.StripANSI(parts[i])); s != "" {
			return s
		}
	}
	return ""
}

// excerpt returns the last excerptLines non-blank lines of screen, at most excerptBytes.
func excerpt(screen string) string {
	lines := strings.Split(screen, "\n")
	var keep []string
	for i := len(lines) - 1; i >= 0 && len(keep) < excerptLines; i-- {
		if strings.TrimSpace(lines[i]) != "" {
			keep = append(keep, strings.TrimRight(lines[i], " "))
		}
	}
	slices.Reverse(keep)
	s := strings.Join(keep, "\n")
	if len(s) > excerptBytes {
		s = s[len(s)-excerptBytes:]
		for len(s) > 0 && s[0]&0xc0 == 0x80 { // not in the middle of a character
			s = s[1:]
		}
	}
	return s
}

// fromResult turns the classifier's reading into a prompt to report, in the words of the
// Ask it puts (prompt.KeyedAskOf: the supervisor writes an answer's key to the child), or
// false when it is no prompt.
func fromResult(res prompt.Result) (Prompt, bool) {
	ask := prompt.KeyedAskOf(res, adapter.AskFromPTY)
	if ask == nil {
		return Prompt{}, false
	}
	p := Prompt{Kind: Kind(ask.Kind), Question: ask.Question, Secret: ask.Secret, LowConfidence: res.Confidence < lowConfidence}
	for _, c := range ask.Choices {
		p.Choices = append(p.Choices, Choice{Key: c.Key, Label: c.Label})
	}
	return p, true
}

// samePrompt reports whether a and b ask the same thing: a redraw of a prompt is not a
// new one.
func samePrompt(a, b *Prompt) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Kind == b.Kind && a.Question == b.Question && a.Secret == b.Secret && slices.Equal(a.Choices, b.Choices)
}
