// Package anthropic is a deterministic fake of Anthropic's Messages API, for
// end-to-end tests that run the real Claude Code CLI offline: point
// ANTHROPIC_BASE_URL at [Server.URL].
//
// It answers HEAD and GET / with 200 (Claude Code's connectivity check),
// POST /v1/messages (any query, e.g. ?beta=true) with a scripted reply —
// server-sent events when the request has "stream": true, else one JSON
// message — and POST /v1/messages/count_tokens with {"input_tokens": 10}.
// Anything else gets a 404 with an Anthropic-style error body.
//
// The reply depends on the last user turn of the request's messages. Entries
// of role "system", <system-reminder> spans and "[Request interrupted by
// user…]" markers are not the person's words and are skipped. When the last
// thing the user side said is a tool_result, the turn is a follow-up: the
// reply is the text "done: " and the first 60 characters of the result,
// end_turn (but see "plan" below). Otherwise the user's last text is matched against these scripts,
// case-insensitively by substring, the first match winning:
//
//	user text contains  reply                                                      stop_reason
//	"<task-notification>…" (the prompt Claude Code submits when a background task
//	ends; matched at its start, before any other script)
//	                    text "background done", after 2 s of thought               end_turn
//	"say hi"            text "hi from the fake model"                              end_turn
//	"background CMD"    Bash {"command": CMD, "description": "In the background:   tool_use
//	                    CMD", "run_in_background": true} (CMD: the rest of that line)
//	"twice A ; B"       Bash {"command": A, "description": "First of two, then:    tool_use
//	                    B"}; its result is followed by Bash {"command": B,
//	                    "description": "Second of two: B"}, whose result ends the turn
//	"run CMD"           Bash {"command": CMD, "description": "Run CMD"}            tool_use
//	                    (CMD: the rest of that line)
//	"write FILE"        Write {"file_path": FILE,                                  tool_use
//	                           "content": "written by the fake model\n"}
//	                    (FILE: the next word, as given)
//	"ask me"            AskUserQuestion "Which colour?" (header "Colour"),         tool_use
//	                    one choice of Red (warm) or Blue (cool)
//	"plan"              ExitPlanMode {"plan": "1. Read the code\n2. Fix the bug"}  tool_use
//	                    (in plan mode: first Write that plan into the plan file
//	                    Claude Code names, then ExitPlanMode once the result
//	                    says the file was created)
//	"slow"              text "slow01 slow02 … slow20", a word per delta,           end_turn
//	                    500 ms apart (10 s in all)
//	"fail"              HTTP 400 {"type": "error", "error": {"type":
//	                    "invalid_request_error", "message": "fake failure"}}, 500 ms after
//	                    the request (a real API takes a round trip to refuse)
//	anything else       text "ok"                                                  end_turn
//
// "run" and "write" match only when followed by a space and an argument. A
// scripted tool the request does not offer, in its tools list or (Claude Code
// 2.1.332, ExitPlanMode among them) in its list of deferred tools, gets the
// text "tool NAME not offered" instead (Claude Code's -p mode offers no
// AskUserQuestion or ExitPlanMode; side requests offer no tools). A deferred
// tool is called directly, without loading it through ToolSearch first, as
// 2.1.332 was seen to accept. The real CLI runs ExitPlanMode only in plan
// mode (Shift+Tab twice, or --permission-mode plan); elsewhere the tool fails
// and the follow-up reads "done: <tool_use_error>…".
//
// A request that asks for structured output (output_config.format of type
// json_schema, as Claude Code's session-title side request does) always gets
// a JSON object text with each schema property filled: a string property P is
// "fake P", so the title is "fake title". That comes first, so side requests
// never block or fail on the user's script.
//
// A request without "stream": true gets the same reply as one JSON message,
// at once even for "slow".
//
// Message ids are msg_fake_N and tool use ids toolu_fake_N, unique per
// server. message_start carries the request's model. A slow stream stops as
// soon as its client goes away or the server closes.
package anthropic
