// Package openai is a deterministic fake of the OpenAI Responses API, shaped to what the Codex
// CLI 0.169.0 sends and expects, so that end-to-end tests can drive the real Codex TUI offline.
//
// Point Codex at it with [Server.ProviderConfig]: a custom model provider with
// wire_api = "responses" whose base_url is the fake's loopback address.
//
// POST /v1/responses answers with a server-sent event stream: response.created,
// response.output_item.added, then for text response.content_part.added,
// response.output_text.delta (one or more), response.output_text.done and
// response.content_part.done, or for a tool call response.function_call_arguments.delta and
// response.function_call_arguments.done; then response.output_item.done and
// response.completed (with usage). GET /v1/models lists the one fake model (Codex 0.169.0
// does not ask for it with a custom provider); any other path is a 404 with an OpenAI-style
// error body.
//
// The reply is chosen from the request's input. If the last input item is a
// function_call_output, the reply is the text "ran it: " followed by the first 60 characters
// of the command's output. Otherwise the last user text (the input_text parts of the last
// message with role "user") is matched against these scripts, case-insensitively, first
// match wins:
//
//	user text                                       reply
//	----------------------------------------------  ------------------------------------------
//	starts with "Generate a concise, single-line    text {"title":"Greet the user"} (Codex's
//	task title"                                     hidden title-generation request, which
//	                                                asks for JSON of a json_schema)
//	contains "say hi"                               text "hi from the fake model"
//	contains "run COMMAND"                          a function_call to exec_command with
//	                                                cmd COMMAND (the rest of the text after
//	                                                "run "), sandbox_permissions
//	                                                "require_escalated" and a justification,
//	                                                so that Codex asks for approval under
//	                                                approval_policy "on-request" and
//	                                                sandbox_mode "workspace-write"
//	contains "slow"                                 text "slow-1 slow-2 … slow-20" in 20 deltas
//	                                                500 ms apart (about 10 s); the stream
//	                                                stops when the client goes away
//	anything else                                   text "ok"
//
// Codex 0.169.0 sends the output of exec_command back wrapped in a header ("Chunk ID",
// "Wall time", "Process exited with code", "Original token count", "Output:"); "ran it"
// quotes only what follows "Output:" when that header is there, so a run of
// "touch probe.txt && ls" ends with "ran it: probe.txt".
//
// Codex runs the title request on a thread of its own after each prompt, with no tools, and
// asks for JSON ({"title": …}, text.format json_schema). The fake answers as a real model
// does, {"title":"Greet the user"}: Codex names the thread and sets the pane title to
// "Greet the user | <dir>", and its notify reports that JSON as the title thread's last
// assistant message. (Answered plain text, Codex adopts no title.)
package openai
