package main

// labHelp is what `trailboss lab --help` says around the flags.
var labHelp = commandHelp{
	Args: "list | run NAME…|--all [--json]",
	About: "The Prompt Lab: replays AtlasBridge's failure scenarios (QA-001 … QA-019) against the\n" +
		"real daemon and the real supervisor (trailboss run), each with its own temp state, a\n" +
		"built-in synthetic child and, for the Telegram ones, a fake Bot API on a loopback port;\n" +
		"and says what it measured. Nothing of yours is touched: no home, state, daemon, tmux\n" +
		"server or Telegram bot of yours is used.",
	Example: "trailboss lab run --all",
}

// labRunHelp is what `trailboss lab run --help` says around the flags.
var labRunHelp = commandHelp{
	Args: "NAME…|--all [--json]",
	About: "Runs the named scenarios (by name or id; trailboss lab list shows them), or all of\n" +
		"them, and prints pass or FAIL with the measured figures for each. Exits 1 when any\n" +
		"fails. --json prints an array of {\"id\", \"name\", \"pass\", \"detail\"}.",
	Example: "trailboss lab run partial-line-prompt QA-019",
}

// labListHelp is what `trailboss lab list --help` says around the flags.
var labListHelp = commandHelp{
	Args:    "",
	About:   "Lists the Prompt Lab's scenarios and what each checks.",
	Example: "trailboss lab list",
}
