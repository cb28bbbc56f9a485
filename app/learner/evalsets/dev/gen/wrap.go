package main

import (
	"encoding/json"
	"fmt"
	"strings"
)

// wrapper builds the request body an agent sends for a spec.
type wrapper struct {
	agent, api string
	noisy      bool
	build      func(spec) any
}

type obj = map[string]any

// wrappers are the agents of the set. Their shapes follow what each agent
// sends: OpenClaw as recorded in reference/openclaw-client.md, Claude Code
// and NanoClaw (which runs the Claude Agent SDK) with their system
// reminders and tool_use/tool_result loops, Hermes with its memory fence
// and skill scaffolding, and plain SDK clients.
var wrappers = map[string]wrapper{
	"plain":              {agent: "plain", api: "openai", build: plainOpenAI},
	"plain-anthropic":    {agent: "plain", api: "anthropic", build: plainAnthropic},
	"slackbot":           {agent: "plain", api: "openai", noisy: true, build: slackEnvelope},
	"openclaw":           {agent: "openclaw", api: "openai", noisy: true, build: openclawOpenAI},
	"openclaw-anthropic": {agent: "openclaw", api: "anthropic", noisy: true, build: openclawAnthropic},
	"claude-code":        {agent: "claude-code", api: "anthropic", noisy: true, build: claudeCode},
	"claude-code-slash":  {agent: "claude-code", api: "anthropic", noisy: true, build: claudeCodeSlash},
	"nanoclaw":           {agent: "nanoclaw", api: "anthropic", noisy: true, build: nanoclaw},
	"hermes":             {agent: "hermes", api: "openai", noisy: true, build: hermes},
	"hermes-skill":       {agent: "hermes", api: "openai", noisy: true, build: hermesSkill},
}

// reply is the assistant's answer to an earlier message of a session.
func reply(i int) string {
	replies := []string{
		"Done. Let me know if you want any changes.",
		"Here you go — I kept it short. Anything else?",
		"Sure, that's sorted now.",
		"I've taken care of that. Shall I continue with something else?",
	}
	return replies[i%len(replies)]
}

func hasPaste(text string) bool {
	return strings.Contains(text, "```") || strings.Contains(text, "Traceback (most recent call last)") ||
		strings.Contains(text, "goroutine ") || strings.Count(text, "\n") > 6
}

func plainOpenAI(s spec) any {
	msgs := []obj{{"role": "system", "content": "You are a helpful assistant."}}
	for i, h := range s.hist {
		msgs = append(msgs, obj{"role": "user", "content": h}, obj{"role": "assistant", "content": reply(i)})
	}
	msgs = append(msgs, obj{"role": "user", "content": s.text})
	return obj{"model": "gpt-4o-mini", "messages": msgs}
}

func plainAnthropic(s spec) any {
	var msgs []obj
	for i, h := range s.hist {
		msgs = append(msgs, obj{"role": "user", "content": h}, obj{"role": "assistant", "content": reply(i)})
	}
	msgs = append(msgs, obj{"role": "user", "content": s.text})
	return obj{"model": "claude-sonnet-4-5", "max_tokens": 4096, "messages": msgs}
}

// slackEnvelope is a chat bot that forwards the platform's event JSON as
// the user message.
func slackEnvelope(s spec) any {
	ev, _ := json.Marshal(obj{"type": "message", "channel": "C024BE91L", "user": "U2147483697", "text": s.text,
		"ts": "1767225600.000200", "team": "T0001", "blocks": []obj{}})
	return obj{"model": "gpt-4o-mini", "messages": []obj{
		{"role": "system", "content": "You are Slackbot for the Acme workspace. Answer the message in the event JSON."},
		{"role": "user", "content": string(ev)}}}
}

// openclawDate is the prefix OpenClaw puts before each user message.
func openclawDate(i int) string {
	return fmt.Sprintf("[Sun 2026-11-29 %02d:%02d UTC] ", 20+i/60, i%60)
}

const openclawRuntime = "\n\nRuntime: agent=main | session=6b1f0c2e | host=devbox | repo=/home/sam/work | os=linux | node=v24.16.0 | model=metaclaw/kimi-k2.5"

const openclawInternal = "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\nActive exec sessions: none\nSubagents: none\nPending approvals: none\nWorkspace: /home/sam/.openclaw/workspace\n<<<END_OPENCLAW_INTERNAL_CONTEXT>>>"

func openclawOpenAI(s spec) any {
	msgs := []obj{{"role": "system", "content": openclawSystem}}
	for i, h := range s.hist {
		text := openclawDate(i) + h
		if i == 0 {
			text += openclawRuntime
		}
		msgs = append(msgs, obj{"role": "user", "content": text}, obj{"role": "assistant", "content": reply(i)})
	}
	text := openclawDate(len(s.hist)) + s.text
	if len(s.hist) == 0 {
		text += openclawRuntime
	}
	msgs = append(msgs, obj{"role": "user", "content": text})
	for i, st := range s.tools {
		id := fmt.Sprintf("call%04dx%s", i, strings.Repeat("a", 8))
		msgs = append(msgs,
			obj{"role": "assistant", "content": nil, "tool_calls": []obj{{"id": id, "type": "function",
				"function": obj{"name": st.tool, "arguments": st.args}}}},
			obj{"role": "tool", "content": st.output, "tool_call_id": id})
	}
	msgs = append(msgs, obj{"role": "user", "content": []obj{{"type": "text", "text": openclawInternal}}})
	return obj{"model": "kimi-k2.5", "messages": msgs, "tools": openclawTools(), "tool_choice": "auto", "stream": true,
		"stream_options": obj{"include_usage": true}, "max_completion_tokens": 8192}
}

func openclawAnthropic(s spec) any {
	var msgs []obj
	for i, h := range s.hist {
		msgs = append(msgs, obj{"role": "user", "content": openclawDate(i) + h}, obj{"role": "assistant", "content": reply(i)})
	}
	text := openclawDate(len(s.hist)) + s.text
	if len(s.hist) == 0 {
		text += openclawRuntime
	}
	msgs = append(msgs, obj{"role": "user", "content": []obj{{"type": "text", "text": text, "cache_control": obj{"type": "ephemeral"}}}})
	for i, st := range s.tools {
		id := fmt.Sprintf("toolu%04dx%s", i, strings.Repeat("b", 8))
		var input any
		_ = json.Unmarshal([]byte(st.args), &input)
		msgs = append(msgs,
			obj{"role": "assistant", "content": []obj{{"type": "tool_use", "id": id, "name": st.tool, "input": input}}},
			obj{"role": "user", "content": []obj{{"type": "tool_result", "tool_use_id": id, "content": st.output, "is_error": false,
				"cache_control": obj{"type": "ephemeral"}}}})
	}
	msgs = append(msgs, obj{"role": "user", "content": []obj{{"type": "text", "text": openclawInternal}}})
	system := []obj{{"type": "text", "text": openclawSystemStable, "cache_control": obj{"type": "ephemeral"}},
		{"type": "text", "text": openclawSystemDynamic}}
	var tools []obj
	for _, t := range openclawTools() {
		f := t["function"].(obj)
		tools = append(tools, obj{"name": f["name"], "description": f["description"], "input_schema": f["parameters"]})
	}
	return obj{"model": "kimi-k2.5", "max_tokens": 8192, "stream": true, "system": system, "messages": msgs, "tools": tools}
}

// claudeCodeMessages builds Claude Code's messages: the CLAUDE.md reminder
// in the session's first user message, the person's messages, and the
// tool loop (Bash, Read, Grep…) with the reminders Claude Code adds to
// tool results.
func claudeCodeMessages(s spec, first func(string) string) []obj {
	var msgs []obj
	texts := append(append([]string{}, s.hist...), s.text)
	for i, t := range texts {
		content := []obj{}
		if i == 0 {
			content = append(content, obj{"type": "text", "text": claudeMDReminder})
		}
		if i == len(texts)-1 {
			t = first(t)
		}
		content = append(content, obj{"type": "text", "text": t})
		msgs = append(msgs, obj{"role": "user", "content": content})
		if i < len(texts)-1 {
			msgs = append(msgs, obj{"role": "assistant", "content": []obj{{"type": "text", "text": reply(i)}}})
		}
	}
	for i, st := range s.tools {
		id := fmt.Sprintf("toolu_01%016d", i)
		var input any
		_ = json.Unmarshal([]byte(st.args), &input)
		msgs = append(msgs, obj{"role": "assistant", "content": []obj{
			{"type": "text", "text": "Let me check that."},
			{"type": "tool_use", "id": id, "name": st.tool, "input": input}}})
		result := []obj{{"type": "tool_result", "tool_use_id": id, "content": st.output}}
		if i%2 == 1 {
			result = append(result, obj{"type": "text", "text": todoReminder})
		}
		msgs = append(msgs, obj{"role": "user", "content": result})
	}
	return msgs
}

func claudeCode(s spec) any {
	return claudeCodeBody(claudeCodeMessages(s, func(t string) string { return t }))
}

// claudeCodeSlash sends the turn as a slash command: the spec's text is
// "/command args".
func claudeCodeSlash(s spec) any {
	return claudeCodeBody(claudeCodeMessages(s, func(t string) string {
		cmd, args, _ := strings.Cut(t, " ")
		name := strings.TrimPrefix(cmd, "/")
		return "<command-message>" + name + " is running…</command-message>\n<command-name>" + cmd +
			"</command-name>\n<command-args>" + args + "</command-args>"
	}))
}

func claudeCodeBody(msgs []obj) any {
	system := []obj{{"type": "text", "text": "You are Claude Code, Anthropic's official CLI for Claude.", "cache_control": obj{"type": "ephemeral"}},
		{"type": "text", "text": claudeCodeSystem, "cache_control": obj{"type": "ephemeral"}}}
	return obj{"model": "claude-sonnet-4-5-20250929", "max_tokens": 32000, "stream": true, "system": system,
		"messages": msgs, "tools": claudeCodeTools(), "metadata": obj{"user_id": "user_7f3a_account__session_91c2"}}
}

// nanoclaw wraps the person's message, and the group chat messages
// before it, in NanoClaw's <messages> envelope.
func nanoclaw(s spec) any {
	var b strings.Builder
	b.WriteString("<messages>\n")
	senders := []string{"Dana", "Luis", "Priya"}
	for i, h := range s.hist {
		fmt.Fprintf(&b, "<message sender=\"%s\" time=\"2026-02-25 %d:%02dpm PT\">%s</message>\n", senders[i%3], 9, 10+i, xmlEscape(h))
	}
	fmt.Fprintf(&b, "<message sender=\"Sam\" time=\"2026-02-25 10:30pm PT\">%s</message>\n</messages>", xmlEscape("@Andy "+s.text))
	inner := s
	inner.hist = nil
	inner.text = b.String()
	msgs := claudeCodeMessages(inner, func(t string) string { return t })
	body := claudeCodeBody(msgs).(obj)
	body["system"] = []obj{{"type": "text", "text": "You are Claude Code, Anthropic's official CLI for Claude."},
		{"type": "text", "text": nanoclawSystem}}
	return body
}

func xmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}

// hermesMessages is Hermes's OpenAI-style conversation, with its memory
// fence after the latest message when hist is non-empty and the tool loop
// as role "tool" messages carrying JSON results.
func hermesMessages(s spec, text string) []obj {
	msgs := []obj{{"role": "system", "content": hermesSystem}}
	for i, h := range s.hist {
		msgs = append(msgs, obj{"role": "user", "content": h}, obj{"role": "assistant", "content": reply(i)})
	}
	if len(s.hist) > 0 {
		text += "\n\n<memory-context>\n[System note: The following is recalled memory context, NOT new user input. Treat as informational background data.]\n- User prefers concise answers\n- User's project uses PostgreSQL and deploys with GitHub Actions\n- User is planning a trip to Japan in April\n</memory-context>"
	}
	msgs = append(msgs, obj{"role": "user", "content": text})
	for i, st := range s.tools {
		id := fmt.Sprintf("call_%08d", 100+i)
		out, _ := json.Marshal(obj{"output": st.output, "exit_code": 0, "error": nil})
		msgs = append(msgs,
			obj{"role": "assistant", "content": "", "tool_calls": []obj{{"id": id, "type": "function",
				"function": obj{"name": st.tool, "arguments": st.args}}}},
			obj{"role": "tool", "tool_call_id": id, "content": string(out)})
	}
	return msgs
}

func hermes(s spec) any {
	return obj{"model": "hermes-4-70b", "messages": hermesMessages(s, s.text), "tools": hermesTools(), "temperature": 0.7}
}

// hermesSkill sends the turn as a Hermes /skill invocation: the skill's
// scaffolding with the person's instruction at the end.
func hermesSkill(s spec) any {
	text := "[IMPORTANT: The user has invoked the \"github-pr-workflow\" skill, indicating they want you to follow its instructions. The full skill content is loaded below.]\n\n---\nname: github-pr-workflow\ndescription: Manage GitHub pull requests end to end with the gh CLI.\n---\n# GitHub PR workflow\n1. Use `gh pr list` and `gh pr view` to inspect pull requests.\n2. Check out with `gh pr checkout N`; run the project's tests and linters.\n3. Leave review comments with `gh pr review`; merge only when CI is green.\n\nThe user has provided the following instruction alongside the skill invocation: " + s.text + "\n\n[Runtime note: skills are loaded from ~/.hermes/skills; use skill_view for linked files.]"
	return obj{"model": "hermes-4-70b", "messages": hermesMessages(s, text), "tools": hermesTools(), "temperature": 0.7}
}
