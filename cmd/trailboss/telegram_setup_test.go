package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	faketelegram "github.com/trailboss/trailboss/testscripts/fakeapi/telegram"
)

// `trailboss telegram setup` with no token yet: it asks for one and keeps it (mode 0600),
// checks it with getMe, shows a code, and once that code comes from the phone writes that
// chat and that user into config.toml, keeping the rest of the file, and says so in the
// chat. A code from the phone that is not the one shown pairs nothing.
func TestTelegramSetupPairsAPhone(t *testing.T) {
	bin, err := exec.LookPath("trailboss")
	if err != nil {
		t.Fatal(err)
	}
	bot, err := faketelegram.Start(scriptToken)
	if err != nil {
		t.Fatal(err)
	}
	defer bot.Close()
	dir := t.TempDir()
	conf := filepath.Join(dir, "xdg", "trailboss", "config.toml")
	if err := os.MkdirAll(filepath.Dir(conf), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(conf, []byte("cooldown = \"30s\"\n\n[delivery]\nmax_reply_length = 300\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "telegram", "setup", "--api-url", bot.URL, "--timeout", "30s")
	cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+filepath.Join(dir, "xdg"), "TRAILBOSS_TELEGRAM_TOKEN=")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW := io.Pipe()
	cmd.Stdout = outW
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait(); outW.Close() }()
	if _, err := io.WriteString(in, scriptToken+"\n"); err != nil {
		t.Fatal(err)
	}
	var said strings.Builder
	code := ""
	sc := bufio.NewScanner(outR)
	codeRe := regexp.MustCompile(`^\s+(\d{6})$`)
	for code == "" && sc.Scan() {
		said.WriteString(sc.Text() + "\n")
		if m := codeRe.FindStringSubmatch(sc.Text()); m != nil {
			code = m[1]
		}
	}
	if code == "" {
		t.Fatalf("setup showed no code:\n%s\nstderr: %s", said.String(), stderr.String())
	}
	go func() { _, _ = io.Copy(io.Discard, outR) }()
	if !strings.Contains(said.String(), "@trailboss_test_bot") {
		t.Errorf("setup does not name the bot:\n%s", said.String())
	}
	// Someone sends the wrong code first: nothing is paired.
	bot.Say(6666, 777, "000000x", 0)
	bot.Say(4242, scriptChat, "here it is: "+code, 0)
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("setup: %v\n%s", err, stderr.String())
		}
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("setup did not finish after the code was sent")
	}
	b, err := os.ReadFile(conf)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`cooldown = "30s"`, "max_reply_length = 300", "[telegram]", "chat_id = 5550001", "allowed_users = [4242]", `api_url = "` + bot.URL + `"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("config.toml lacks %q:\n%s", want, b)
		}
	}
	tokenFile := filepath.Join(dir, "xdg", "trailboss", "telegram-token")
	if fi, err := os.Stat(tokenFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the token file: %v, mode %v; want mode 0600", err, fi.Mode().Perm())
	}
	getenv := func(k string) string {
		return map[string]string{"HOME": dir, "XDG_CONFIG_HOME": filepath.Join(dir, "xdg")}[k]
	}
	cfg, err := loadConfig(getenv)
	if err != nil || checkConfig(cfg, conf) != nil || cfg.Telegram == nil || cfg.Telegram.ChatID != scriptChat {
		t.Errorf("the written config does not load: %v, %+v", err, cfg.Telegram)
	}
	found := false
	for _, m := range bot.Messages() {
		if m.ChatID == scriptChat && strings.Contains(m.Text, "Paired with Trail Boss") {
			found = true
		}
	}
	if !found {
		t.Errorf("no confirmation in the chat: %+v", bot.Messages())
	}
}
