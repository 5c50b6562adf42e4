package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trailboss/trailboss/daemon/wire"
	faketelegram "github.com/trailboss/trailboss/testscripts/fakeapi/telegram"
)

// TestRealClaudeCodeAllowedFromThePhone: with the Telegram relay on (which turns holding
// on), a Bash permission of the real Claude Code becomes a message with Allow and Deny; the
// operator's tap on Allow, through the fake Bot API, is the held PermissionRequest hook's
// decision and the command runs; the message then says so and has no buttons. An
// AskUserQuestion's options become buttons, and the one tapped is Claude Code's answer.
// In auto mode the Bash dialog fires no PermissionRequest: the tap on Allow picks Yes in
// the pane.
func TestRealClaudeCodeAllowedFromThePhone(t *testing.T) {
	eachClaude(t, realClaudeCodeAllowedFromThePhone)
}

func realClaudeCodeAllowedFromThePhone(t *testing.T, cc claudeSetup) {
	w := newClaudeWorld(t, cc)
	bot, err := faketelegram.Start(scriptToken)
	if err != nil {
		t.Fatal(err)
	}
	defer bot.Close()
	dir := filepath.Join(envValue(w.env, "XDG_CONFIG_HOME"), "trailboss")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "telegram-token"), []byte(scriptToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	conf := fmt.Sprintf("[telegram]\nchat_id = %d\nallowed_users = [%d]\napi_url = %q\n", scriptChat, scriptOperator, bot.URL)
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	w.stopDaemon()
	w.restartDaemon() // reads the config: the relay on, holding on
	pane := w.startClaude()

	phone := w.asking("phone.txt")
	w.typeLine(pane, "run touch "+phone)
	w.dialogOpens(pane)
	it, p := w.waitPrompt(pane, "the Bash permission's prompt", wire.KindPermission, 15*time.Second)
	if !strings.Contains(it.Summary, "touch "+phone) {
		t.Fatalf("Bash permission: %+v", it)
	}
	w.waitScreen(pane, `Do you want to proceed\?`, 10*time.Second)
	if !cc.auto {
		w.waitHeld("the PermissionRequest hook to hold", p.ID, 10*time.Second)
	}
	var msg faketelegram.Message
	if err := bot.Wait(5*time.Second, func() bool {
		for _, m := range bot.Messages() {
			for _, k := range m.Keys() {
				if strings.Contains(k, p.ID) {
					msg = m
					return true
				}
			}
		}
		return false
	}); err != nil {
		t.Fatalf("no message with the permission's buttons: %+v", bot.Messages())
	}
	if !strings.Contains(msg.Text, "asks permission") || !strings.Contains(msg.Text, "touch "+phone) {
		t.Errorf("the message says %q", msg.Text)
	}
	allow := ""
	for _, k := range msg.Keys() {
		if strings.HasSuffix(k, ":allow") {
			allow = k
		}
	}
	tapped := time.Now()
	_, cb := bot.Tap(scriptOperator, scriptChat, msg.ID, allow)
	w.tm.WaitFor(t, "the allowed command to run", 10*time.Second, func() bool { return fileExists(phone) })
	t.Logf("the command ran %v after the tap", time.Since(tapped).Round(time.Millisecond))
	if err := bot.Wait(10*time.Second, func() bool { _, ok := bot.CallbackAnswer(cb); return ok }); err != nil {
		t.Fatal("the tap was never answered")
	}
	if a, _ := bot.CallbackAnswer(cb); a.Text != "Sent: Allow." {
		t.Errorf("the tap was answered %q, want \"Sent: Allow.\"", a.Text)
	}
	if !cc.auto {
		w.waitReleased("the hook to exit after printing its decision", 5*time.Second)
		w.waitScreen(pane, `Allowed by PermissionRequest hook`, 5*time.Second)
	}
	if err := bot.Wait(10*time.Second, func() bool {
		m, _ := bot.Message(msg.ID)
		return len(m.Buttons) == 0 && strings.Contains(m.Text, "Answered from Telegram: Allow")
	}); err != nil {
		m, _ := bot.Message(msg.ID)
		t.Errorf("after the tap the message says %q with buttons %q", m.Text, m.Keys())
	}
	w.waitItem(pane, "the turn after the allowed command", 15*time.Second, isStopped)

	// A question: its options are buttons; the tap on Blue is the answer.
	w.typeLine(pane, "ask me")
	w.waitScreen(pane, `Which colour\?`, 15*time.Second)
	_, q := w.waitPrompt(pane, "the question's prompt", wire.KindChoice, 15*time.Second)
	w.waitHeld("the hook to hold for the question", q.ID, 10*time.Second)
	var qmsg faketelegram.Message
	if err := bot.Wait(5*time.Second, func() bool {
		for _, m := range bot.Messages() {
			for _, k := range m.Keys() {
				if strings.Contains(k, q.ID) {
					qmsg = m
					return true
				}
			}
		}
		return false
	}); err != nil {
		t.Fatalf("no message with the question's buttons: %+v", bot.Messages())
	}
	blue := ""
	for _, row := range qmsg.Buttons {
		for _, b := range row {
			if strings.Contains(b.Text, "Blue") {
				blue = b.Data
			}
		}
	}
	if !strings.Contains(qmsg.Text, "Which colour?") || blue == "" {
		t.Fatalf("the question's message says %q with buttons %+v", qmsg.Text, qmsg.Buttons)
	}
	bot.Tap(scriptOperator, scriptChat, qmsg.ID, blue)
	w.waitReleased("the hook to exit after answering the question", 5*time.Second)
	w.waitScreen(pane, `→ Blue`, 10*time.Second)
}
