package learning

import (
	"strings"
	"testing"
)

// TestSideRequest: the agents' own requests — in the shapes their prompts
// have — are told from a person's turns, including turns that mention
// titles, summaries or heartbeats in passing.
func TestSideRequest(t *testing.T) {
	t.Parallel()
	sys := func(s string) Message { return Message{Role: "system", Text: s} }
	user := func(s string) Message { return Message{Role: "user", Text: s} }
	asst := func(s string) Message { return Message{Role: "assistant", Text: s} }
	// OpenClaw's main system prompt is tens of kilobytes and quotes its
	// heartbeat prompt in its Heartbeat section.
	openclawSystem := "You are a personal assistant running inside OpenClaw.\n" + strings.Repeat("## Tooling\nUse the tools.\n", 300) +
		"## Heartbeats\nHeartbeat prompt: Read HEARTBEAT.md if it exists (workspace context). Follow it strictly. If nothing needs attention, reply HEARTBEAT_OK.\n"
	// OpenClaw's internal-context message comes last on every turn.
	openclawContext := "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\nActive exec sessions: none\nSubagents: none\n<<<END_OPENCLAW_INTERNAL_CONTEXT>>>"
	tests := []struct {
		name string
		msgs []Message
		want string
	}{
		{"claude code topic check", []Message{
			sys("Analyze if this message indicates a new conversation topic. If it does, extract a 2-3 word title that captures the new topic. Format your response as a JSON object with two fields: 'isNewTopic' (boolean) and 'title' (string, or null if isNewTopic is false)."),
			user("the login page 500s after the last deploy, can you look?")}, "topic check"},
		{"claude code title", []Message{
			sys("Summarize this coding conversation in under 50 characters.\nCapture the main task, key files, problems addressed, and current status."),
			user("Please write a 5-10 word title the following conversation:\n\nUser: fix the flaky test in auth_test.go\n\nClaude: Done, the race was in the fixture.\n\nRespond with the title for the conversation and nothing else.")}, "title"},
		{"claude code session title generator", []Message{
			sys("Generate a concise, sentence-case title (3-7 words) that captures the main topic or goal of this coding session. Return JSON with a single \"title\" field."),
			user("debug why the docker build reinstalls node_modules")}, "title"},
		{"claude code session name", []Message{
			sys("Generate a short kebab-case name (2-4 words) that captures the main topic of this conversation. Return JSON with a \"name\" field."),
			user("add oauth login")}, "session name"},
		{"claude code compaction", []Message{
			user("set up the CI pipeline for the repo"), asst("I added .github/workflows/ci.yml."),
			user("Your task is to create a detailed summary of the conversation so far, paying close attention to the user's explicit requests and your previous actions.")}, "compaction summary"},
		{"claude code bash prefix", []Message{
			user("<policy_spec>\n# Claude Code Code Bash command prefix detection\n\nThis document defines risk levels for actions...\n</policy_spec>\n\nCommand: git push --force origin main")}, "command check"},
		{"claude code quota probe", []Message{user("quota")}, "quota probe"},
		{"hermes title", []Message{
			sys("You name chat sessions. Given the user's opening message, write a title that lets them find this conversation again in a list."),
			user("my sourdough starter smells like nail polish remover")}, "title"},
		{"hermes older title", []Message{
			user("Generate a short, descriptive title (3-7 words) for a conversation that starts with the following exchange:\n\nUser: how do I renew my TLS cert\nAssistant: Run certbot renew.")}, "title"},
		{"hermes compaction", []Message{
			user("Create a structured handoff summary for a later assistant that will continue this conversation.\n\nTURNS TO SUMMARIZE:\n[user] fix the nginx config\n[assistant] done")}, "compaction summary"},
		{"openclaw heartbeat", []Message{sys(openclawSystem),
			user("Read HEARTBEAT.md if it exists (workspace context). Follow it strictly. Do not infer or repeat old tasks from prior chats. If nothing needs attention, reply HEARTBEAT_OK.\nCurrent time: Thursday, March 5th, 2026 — 17:59 (Asia/Shanghai)")}, "heartbeat"},
		{"openclaw heartbeat, its internal context after it", []Message{sys(openclawSystem),
			user("Read HEARTBEAT.md if it exists (workspace context). Follow it strictly. Do not infer or repeat old tasks from prior chats. If nothing needs attention, reply HEARTBEAT_OK."),
			user(openclawContext)}, "heartbeat"},
		{"open webui title", []Message{user("### Task:\nGenerate a concise, 3-5 word title with an emoji summarizing the chat history.\n### Guidelines:\n- The title should clearly represent the main theme or subject of the conversation.\n### Output:\nJSON format: { \"title\": \"your concise title here\" }\n### Chat History:\n<chat_history>\nUSER: best hikes near Bergen?\nASSISTANT: Ulriken and Fløyen.\n</chat_history>")}, "client task"},
		{"open webui tags", []Message{user("### Task:\nGenerate 1-3 broad tags categorizing the main themes of the chat history, along with 1-3 more specific subtopic tags.\n\n### Guidelines:\n- Start with high-level domains (e.g. Science, Technology, Philosophy, Arts, Politics, Business, Health, Sports, Entertainment, Education)\n- Consider including relevant subfields/subdomains if they are strongly represented throughout the conversation\n- If content is too short (less than 3 messages) or too diverse, use only [\"General\"]\n- Use the chat's primary language; default to English if multilingual\n- Prioritize accuracy over specificity\n\n### Output:\nJSON format: { \"tags\": [\"tag1\", \"tag2\", \"tag3\"] }\n\n### Chat History:\n<chat_history>\nUSER: my invoice total is off by a cent\n</chat_history>")}, "client task"},
		{"an app's title generator", []Message{
			sys("You are a title generator. Generate a short, descriptive title (max 50 characters) for a chat conversation based on the user's first message."),
			user("best hikes near Bergen in October?")}, "title"},

		{"person: a blog post title", []Message{user("give me a catchy title for my blog post about hiking in Norway")}, ""},
		{"person: a talk's title", []Message{user("suggest a title for the session talk I'm giving at PyCon about async")}, ""},
		{"person: a summary of a chat", []Message{user("Write a summary of our chat with the supplier yesterday: they want 30 days' notice.")}, ""},
		{"person: quota in a conversation", []Message{user("what's my storage limit?"), asst("Which service?"), user("quota")}, ""},
		{"openclaw main turn quoting the heartbeat", []Message{sys(openclawSystem), user("[Thu 2026-03-05 18:02 UTC] fix the failing tests in api/")}, ""},
		{"openclaw main turn, its internal context after it", []Message{sys(openclawSystem), user("[Thu 2026-03-05 18:02 UTC] fix the failing tests in api/"), user(openclawContext)}, ""},
		{"person: a task list of their own", []Message{user("### Task:\nwrite the release notes for v2.3 from the changelog below\n- fixed login\n- faster search")}, ""},
		{"person: about heartbeats", []Message{user("why does my agent keep answering HEARTBEAT_OK every 30 minutes?")}, ""},
		{"empty", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SideRequest(tt.msgs); got != tt.want {
				t.Errorf("SideRequest = %q, want %q", got, tt.want)
			}
		})
	}
}

// BenchmarkSideRequest: the check runs on every turn the client does not
// type; here a 40 KB agent system prompt and a long conversation.
func BenchmarkSideRequest(b *testing.B) {
	msgs := []Message{{Role: "system", Text: strings.Repeat("You are an agent. Use the tools well. ", 1000)}}
	for i := range 20 {
		msgs = append(msgs, Message{Role: "user", Text: strings.Repeat("please fix the failing test in the api package ", 20+i)},
			Message{Role: "assistant", Text: "Done."})
	}
	b.ReportAllocs()
	for b.Loop() {
		if SideRequest(msgs) != "" {
			b.Fatal("a main turn taken for a side request")
		}
	}
}
