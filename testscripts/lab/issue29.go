package lab

// Prompt Lab scenarios of issue 29 (what reaches a terminal from afar), beside AtlasBridge's.

// promptDBPass is a prompt whose words do not say it asks for a password.
const promptDBPass = "DB_PASS? "

func init() {
	// Canonical mode with echo off, as bash's `read -s -p "DB_PASS? "` asks: the line is
	// read as the terminal hands it over, CR made LF.
	children["db-password"] = childProgram{hidden: true, steps: ask(promptDBPass)}
	scenarios = append(scenarios,
		&Scenario{id: "I29-05", name: "echo-off-prompt", child: "db-password", run: i29EchoOff,
			about: "a prompt asked with the terminal's echo off (canonical mode, as read -s asks) is a secret record though its words do not say so: a password from the popup, the CLI or the API is refused 409 secret, nothing is typed or kept; the keyboard answers it"},
	)
}

func i29EchoOff(r *rig) error { return keyboardOnly(r, promptDBPass, labPassword+"\n") }
