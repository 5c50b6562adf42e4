// Forwards what OpenCode says about waiting to Trail Boss (https://github.com/trailboss/trailboss),
// and gives OpenCode the answers its operator gives through Trail Boss, through OpenCode's own
// client: no key is typed, no port is opened.
//
// Each event that matters (a session starting, a turn at work or ended, a permission or a
// question asked or answered, OpenCode quitting) is handed to `trailboss emit --opencode` on
// its stdin, in a process of its own that OpenCode never waits for: a daemon that is down or
// slow costs OpenCode nothing, and emit keeps the event in its spool until the daemon is back.
// For a permission or a question, emit may hold until the operator answers in Trail Boss (when
// delivery is on): it then prints the reply, which this plugin gives OpenCode. Whatever answers
// first, the keyboard or Trail Boss, wins.

import { spawn } from "node:child_process"

const TRAILBOSS = __TRAILBOSS__
const PLUGIN_ID = __PLUGIN_ID__

export const TrailBoss = async ({ client }) => {
  const roles = new Map() // message id → role: the parts of user messages are not the turn's words
  const lastText = new Map() // session → its turn's last assistant text
  const prompts = new Map() // session → the id of its latest user message
  const parents = new Map() // a subagent's session → the session that started it
  const known = new Set() // sessions registered with Trail Boss
  const busy = new Map() // session → its last status was busy
  const asks = new Map() // session → ids of its permissions and questions waiting
  let last = 0

  // now is when an event was seen, in ms since the epoch, strictly increasing: emit's processes
  // start together and run in any order, and the daemon orders each session's events by this.
  const now = () => {
    let t = performance.timeOrigin + performance.now()
    if (t <= last) t = last + 0.001
    last = t
    return t
  }

  // send hands payload to emit on its stdin (what an agent says is not for other users' eyes,
  // as arguments would be); with onReply, emit may hold, and what it prints is the answer.
  // With inArgs the payload is emit's argument: it is read before OpenCode can exit.
  const send = (payload, onReply, inArgs) => {
    try {
      const args = ["emit", "--opencode"]
      if (inArgs) args.push(JSON.stringify(payload))
      const child = spawn(TRAILBOSS, args, {
        detached: true,
        stdio: ["pipe", onReply ? "pipe" : "ignore", "ignore"],
      })
      child.on("error", () => {})
      child.stdin.on("error", () => {})
      child.stdin.end(inArgs ? "" : JSON.stringify(payload))
      if (onReply) {
        let out = ""
        child.stdout.on("data", (d) => (out += d))
        child.stdout.on("end", () => {
          const line = out.trim()
          if (line) {
            try {
              onReply(JSON.parse(line))
            } catch {}
          }
        })
      }
      child.unref()
    } catch {}
  }

  // reply gives OpenCode the operator's answer through its own client, in process: the
  // TUI takes it as if it were answered at the keyboard. One that comes after the keyboard's
  // is refused by OpenCode, and that is all.
  const reply = async (r) => {
    try {
      const id = encodeURIComponent(r.requestID)
      if (r.reply) {
        await client._client.post({ url: `/permission/${id}/reply`, body: { reply: r.reply } })
      } else if (r.answers) {
        await client._client.post({ url: `/question/${id}/reply`, body: { answers: r.answers } })
      }
    } catch {}
  }

  const root = (session) => {
    while (parents.has(session)) session = parents.get(session)
    return session
  }

  const register = (session) => {
    if (known.has(session)) return
    known.add(session)
    send({ type: "session.created", properties: { sessionID: session }, at: now() })
  }

  const handle = (event) => {
    const type = event.type
    const props = event.properties || {}
    switch (type) {
      case "message.updated": {
        const info = props.info || {}
        if (!info.id) return
        roles.set(info.id, info.role)
        if (info.role === "user" && prompts.get(info.sessionID) !== info.id) {
          // A new prompt: the last turn's words are not this turn's (a turn that a reject
          // ends has none of its own).
          prompts.set(info.sessionID, info.id)
          lastText.delete(info.sessionID)
        }
        return
      }
      case "message.part.updated": {
        const part = props.part || {}
        if (part.type === "text" && part.text && !part.synthetic && roles.get(part.messageID) === "assistant")
          lastText.set(part.sessionID, part.text)
        return
      }
      case "session.created": {
        const info = props.info || {}
        if (info.parentID) {
          parents.set(props.sessionID, info.parentID)
          return
        }
        if (known.has(props.sessionID)) return
        known.add(props.sessionID)
        send({ type, properties: props, at: now() })
        return
      }
      case "session.status": {
        if (parents.has(props.sessionID)) return
        const isBusy = props.status && props.status.type === "busy"
        if (!isBusy || busy.get(props.sessionID)) {
          if (!isBusy) busy.set(props.sessionID, false)
          return // session.idle says a turn ended; a busy session stays busy
        }
        busy.set(props.sessionID, true)
        register(props.sessionID)
        send({ type, properties: { sessionID: props.sessionID, status: props.status }, at: now() })
        return
      }
      case "session.idle": {
        if (parents.has(props.sessionID)) return
        busy.set(props.sessionID, false)
        const waiting = asks.get(props.sessionID)
        if (waiting && waiting.size > 0) return // the ask is what it waits for
        register(props.sessionID)
        send({ type, properties: { sessionID: props.sessionID }, text: lastText.get(props.sessionID) || "", at: now() })
        return
      }
      case "permission.asked":
      case "question.asked": {
        const session = root(props.sessionID)
        if (!asks.has(session)) asks.set(session, new Set())
        asks.get(session).add(props.id)
        register(session)
        send({ type, properties: { ...props, sessionID: session }, at: now() }, reply)
        return
      }
      case "permission.replied":
      case "question.replied":
      case "question.rejected": {
        const session = root(props.sessionID)
        if (asks.has(session)) asks.get(session).delete(props.requestID)
        send({ type, properties: { sessionID: session, requestID: props.requestID }, at: now() })
        return
      }
    }
  }

  // Say it is loaded, for trailboss doctor (nothing private: its version and OpenCode's pid).
  send({ type: "plugin.loaded", plugin: PLUGIN_ID, pid: process.pid, at: now() }, null, true)

  return {
    event: async ({ event }) => {
      try {
        handle(event)
      } catch {}
    },
    // OpenCode quitting says nothing on its bus; it disposes of its plugins (twice, with --port)
    // and exits about a second later. The payload, a session id, goes as an argument.
    dispose: async () => {
      for (const session of known) send({ type: "dispose", properties: { sessionID: session }, at: now() }, null, true)
      known.clear()
    },
  }
}
