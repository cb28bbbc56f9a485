package learning

import (
	"regexp"
	"strings"
)

// SideRequest names the request an agent makes for itself besides the
// person's turns — a title or a name for the session, whether a message
// starts a new topic, a summary to compact its context, a check of a shell
// command, a quota probe, a periodic heartbeat — or returns "" for a
// person's turn. The proxy treats such a request as a side turn unless the
// client says otherwise (X-Turn-Type): nothing is injected into it, and it
// is not learnt from as a turn of the person's.
//
// Each agent's markers are its own prompts' words, from its source or its
// published prompts:
//
//   - Claude Code: the topic check ("Analyze if this message indicates a
//     new conversation topic"), the session title and name generators,
//     the title request ("Please write a 5-10 word title…"), compaction
//     ("Your task is to create a detailed summary of the conversation so
//     far"), the Bash command checks (<policy_spec>, "Extract any file
//     paths that this command reads or modifies") and the "quota" probe.
//   - Hermes (agent/title_generator.py, agent/context_compressor.py): "You
//     name chat sessions." and its compaction's "Create a structured
//     handoff summary".
//   - OpenClaw: the heartbeat poll ("Read HEARTBEAT.md if it exists…"),
//     sent as a user message (its main system prompt may quote it, so only
//     the latest user message counts; the internal-context message
//     OpenClaw always sends last is not the person's, so it is passed over).
//   - Open WebUI (backend/open_webui/config.py's task templates): its
//     background tasks — title, tags, follow-up suggestions, search
//     queries — are a user message that opens "### Task:" and carries the
//     chat as <chat_history>.
//   - Any client: a short system prompt, or the latest user message, that
//     opens by asking for a title of the conversation, chat or session.
//
// A system prompt counts only when it is short (sideSystemMax): an
// agent's main prompt is many kilobytes and may name these tasks in
// passing; a side request's is a paragraph.
func SideRequest(msgs []Message) string {
	var last string
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "user" {
			last = strings.TrimSpace(msgs[i].Text)
			if !strings.HasPrefix(last, openclawInternal) {
				break
			}
		}
	}
	for _, m := range msgs {
		if m.Role != "system" || len(m.Text) > sideSystemMax {
			continue
		}
		if kind := sideKind(m.Text, systemMarkers); kind != "" {
			return kind
		}
		if titleAskRE.MatchString(strings.TrimSpace(m.Text)) {
			return "title"
		}
	}
	if last == "" {
		return ""
	}
	head := last[:min(len(last), sideHead)]
	if kind := sideKind(head, userMarkers); kind != "" {
		return kind
	}
	if titleAskRE.MatchString(head) {
		return "title"
	}
	if strings.HasPrefix(last, "### Task:") && strings.Contains(last, "<chat_history>") {
		return "client task"
	}
	if strings.EqualFold(last, "quota") && users(msgs) == 1 {
		return "quota probe"
	}
	return ""
}

// sideSystemMax is the longest system prompt read for side markers, and
// sideHead how much of the latest user message is: a side request states
// its task first.
const (
	sideSystemMax = 4096
	sideHead      = 400
)

// openclawInternal opens the internal-context message OpenClaw sends
// after the person's on every turn.
const openclawInternal = "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>"

type sideMarker struct{ text, kind string }

var (
	systemMarkers = []sideMarker{
		{"analyze if this message indicates a new conversation topic", "topic check"},
		{"summarize this coding conversation in under", "title"},
		{"captures the main topic or goal of this coding session", "title"},
		{"generate a short kebab-case name", "session name"},
		{"you name chat sessions.", "title"},
		{"bash command prefix detection", "command check"},
		{"extract any file paths that this command reads or modifies", "command check"},
	}
	userMarkers = []sideMarker{
		{"your task is to create a detailed summary of the conversation so far", "compaction summary"},
		{"create a structured handoff summary", "compaction summary"},
		{"context checkpoint compaction", "compaction summary"},
		{"read heartbeat.md if it exists", "heartbeat"},
		{"<policy_spec>", "command check"},
	}
	// titleAskRE is a request that opens by asking for a title of the
	// conversation: "Please write a 5-10 word title the following
	// conversation:", "Generate a short title for this chat.", "You are a
	// title generator…". The conversation must end the phrase (a colon, a
	// stop, "that starts…"): a person's "a title for the session talk I'm
	// giving" or "a title for my blog post" names something else.
	titleAskRE = regexp.MustCompile(`(?is)^(please\s+)?((write|generate|create|suggest|give|provide|produce)\b[^.\n]{0,60}\btitle\b[^.\n]{0,80}\b(conversation|chat|session|exchange)\b\s*([:.,;)]|$|(that|which|so far|above|below|between|starting|based|from)\b)|you are an? (\w+ )?title generator\b)`)
)

func sideKind(text string, markers []sideMarker) string {
	lower := strings.ToLower(text)
	for _, m := range markers {
		if strings.Contains(lower, m.text) {
			return m.kind
		}
	}
	return ""
}

func users(msgs []Message) int {
	n := 0
	for _, m := range msgs {
		if m.Role == "user" {
			n++
		}
	}
	return n
}
