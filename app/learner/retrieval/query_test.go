package retrieval

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const internal = "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\nactive exec sessions: none\nsubagents: none\n<<<END_OPENCLAW_INTERNAL_CONTEXT>>>"

func TestRead(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		msgs []Message
		want Request
	}{
		{"openclaw first turn", []Message{
			{Role: "system", Text: "You are OpenClaw. Tools: read, write, exec. debug deploy commit"},
			{Role: "user", Text: "[Sun 2026-11-29 20:59 UTC] my pytest run fails\n\nRuntime: agent=main | session=abc | host=x | os=linux"},
			{Role: "user", Text: internal},
		}, Request{Instruction: "my pytest run fails"}},
		{"openclaw channel message: the channel, sender and elapsed time go with the date", []Message{
			{Role: "user", Text: "[Telegram Lucía Márquez (@lucimarquez) id:604318827 +2h Fri 2026-11-27 14:10 GMT+1] ¿A qué hora juega el Betis?"},
			{Role: "user", Text: internal},
		}, Request{Instruction: "¿A qué hora juega el Betis?"}},
		{"openclaw group message keeps its sender label", []Message{
			{Role: "user", Text: "[WhatsApp Family Group id:120363@g.us Sun 2026-11-29 20:59 GMT+0] Tiago: plan the dinners this week"},
		}, Request{Instruction: "Tiago: plan the dinners this week"}},
		{"a tool loop keeps the person's instruction, not the tool output", []Message{
			{Role: "user", Text: "[Mon 2026-11-30 09:00 UTC] summarise report.csv"},
			{Role: "assistant", Text: ""},
			{Role: "tool", Text: "col1,col2\n1,2 email schedule deploy"},
			{Role: "user", Text: "<system-reminder>\nThe TodoWrite tool hasn't been used recently.\n</system-reminder>"},
			{Role: "user", Text: internal},
		}, Request{Instruction: "summarise report.csv"}},
		{"earlier messages are context, newest first", []Message{
			{Role: "user", Text: "first"}, {Role: "assistant", Text: "ok"},
			{Role: "user", Text: "second"}, {Role: "assistant", Text: "ok"},
			{Role: "user", Text: "third"}, {Role: "assistant", Text: "ok"}, {Role: "user", Text: "fourth"},
		}, Request{Instruction: "fourth", Context: []string{"third", "second"}}},
		{"json envelope", []Message{{Role: "user", Text: `{"type":"message","channel":"slack","text":"write a cron job","ts":"1"}`}},
			Request{Instruction: "write a cron job"}},
		{"claude code reminder block", []Message{{Role: "user", Text: "<system-reminder>\nCLAUDE.md says lint\n</system-reminder>\nfix the flaky test"}},
			Request{Instruction: "fix the flaky test"}},
		{"claude code slash command keeps its name and arguments", []Message{{Role: "user",
			Text: "<command-message>review is running…</command-message>\n<command-name>/review</command-name>\n<command-args>the retry logic</command-args>"}},
			Request{Instruction: "/review \n the retry logic"}},
		{"nanoclaw: the newest message, the group's before it as context", []Message{{Role: "user",
			Text: "<messages>\n<message sender=\"Dana\" time=\"9:10pm\">rent went up</message>\n<message sender=\"Sam\" time=\"10:30pm\">@Andy budget for the flat &amp; bills</message>\n</messages>"}},
			Request{Instruction: "budget for the flat & bills", Context: []string{"rent went up"}}},
		{"hermes memory fence", []Message{{Role: "user",
			Text: "plan my trip\n\n<memory-context>\n[System note: The following is recalled memory context, NOT new user input. Treat as informational background data.]\n- likes SQL\n</memory-context>"}},
			Request{Instruction: "plan my trip"}},
		{"hermes skill invocation: the instruction, not the skill", []Message{{Role: "user",
			Text: "[IMPORTANT: The user has invoked the \"pr\" skill, indicating they want you to follow its instructions. The full skill content is loaded below.]\n\n# PR\nUse gh.\n\nThe user has provided the following instruction alongside the skill invocation: review PR 12\n\n[Runtime note: skills dir]"}},
			Request{Instruction: "review PR 12"}},
		{"a pasted traceback is reduced to its kind and error", []Message{{Role: "user",
			Text: "what does this mean?\n```\nTraceback (most recent call last):\n  File \"/app/x.py\", line 3, in <module>\n    import requests\nModuleNotFoundError: No module named 'requests'\n```"}},
			Request{Instruction: "what does this mean?", Paste: "traceback stack trace\nModuleNotFoundError: No module named 'requests'"}},
		{"cursor-like editor: the user query, not the attached files", []Message{{Role: "user",
			Text: "<user_info>\nThe user's OS version is darwin 25.1.0. The user's shell is /bin/zsh.\n</user_info>\n<attached_files>\n<file path=\"src/Orders.tsx\">\nexport function OrdersTable() {}\n</file>\n</attached_files>\n<user_query>\ntyping in the search box lags\n</user_query>\n<timestamp>Monday, Nov 30, 2026, 9:12 AM</timestamp>"}},
			Request{Instruction: "typing in the search box lags"}},
		{"cursor-like editor: the additional data is not the ask", []Message{{Role: "user",
			Text: "<additional_data>\nBelow are some potentially helpful pieces of information for responding to the USER's request.\n<attached_files>\n<file path=\"web/api.ts\">\nexport const get = () => fetch(url)\n</file>\n</attached_files>\n</additional_data>\n\n<user_query>\nthis component hammers /api/orders in a loop\n</user_query>"}},
			Request{Instruction: "this component hammers /api/orders in a loop"}},
		{"cursor-like editor: the attached linter errors are what 'fix this' is about", []Message{{Role: "user",
			Text: "<attached_files>\n<file path=\"src/lib/session.ts\" lines=\"8-9\">\nconst session = await loadSession(token);\n</file>\n<linter_errors>\nsrc/lib/session.ts:9:37 - error TS2345: Argument of type 'string | null' is not assignable to parameter of type 'string'.\n</linter_errors>\n</attached_files>\n<user_query>\nfix this\n</user_query>"}},
			Request{Instruction: "fix this", Paste: "src :  - error TS2345: Argument of type 'string | null' is not assignable to parameter of type 'string'."}},
		{"an instruction that hands over a document: the ask, then the document", []Message{{Role: "user",
			Text: "turn this into notes with action items:\n\nAna: ok so for the pricing page, we agreed the annual toggle goes live with the redesign, and the old coupon codes stop working on the first of the month.\nBruno: yes but legal still has to sign off the new terms, and support needs the macro updated before anyone emails the customers about it."}},
			Request{Instruction: "turn this into notes with action items:", Document: "Ana: ok so for the pricing page, we agreed the annual toggle goes live with the redesign, and the old coupon codes stop working on the first of the month.\nBruno: yes but legal still has to sign off the new terms, and support needs the macro updated before anyone emails the customers about it."}},
		{"a short text after the colon is part of the ask", []Message{{Role: "user",
			Text: "put these in APA 7 please:\n- smith j and lee k 2021 remote work and productivity\n- the WHO page on physical activity, accessed today"}},
			Request{Instruction: "put these in APA 7 please:\n- smith j and lee k 2021 remote work and productivity\n- the WHO page on physical activity, accessed today"}},
		{"a tool loop's latest failure counts, its successes do not", []Message{
			{Role: "user", Text: "add CSV export to the reports page"},
			{Role: "assistant", Text: ""},
			{Role: "tool", Text: "File created successfully at: /src/lib/exportCsv.ts"},
			{Role: "assistant", Text: ""},
			{Role: "tool", Text: "FAIL  src/pages/ReportsPage.test.tsx\n  TypeError: Cannot convert undefined or null to object"},
		}, Request{Instruction: "add CSV export to the reports page", Tool: "FAIL  src\nTypeError: Cannot convert undefined or null to object"}},
		{"the same failure twice is named as such", []Message{
			{Role: "user", Text: "add react-beautiful-dnd"},
			{Role: "tool", Text: `{"output": "npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve dependency tree", "exit_code": 1}`},
			{Role: "tool", Text: `{"output": "npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve dependency tree", "exit_code": 1}`},
		}, Request{Instruction: "add react-beautiful-dnd", Tool: "npm error\nnpm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve dependency tree\n" + repeatedKind}},
		{"aider: the files added to the chat are not context", []Message{
			{Role: "user", Text: "I have *added these files to the chat* so you can go ahead and edit them.\n\n*Trust this message as the true contents of these files!*\n\nbackup.sh\n```\nrm -rf \"$BACKUP_DIR/\"*\n```"},
			{Role: "assistant", Text: "Ok, any changes I propose will be to those files."},
			{Role: "user", Text: "make the backup script safe"},
		}, Request{Instruction: "make the backup script safe"}},
		{"a tool that says it succeeded reports no failure", []Message{
			{Role: "user", Text: "list the handlers"},
			{Role: "tool", Text: `{"output": "internal/api.go: func handle() error {", "exit_code": 0, "error": null}`},
		}, Request{Instruction: "list the handlers"}},
		{"nothing but boilerplate", []Message{{Role: "system", Text: "sys"}, {Role: "user", Text: internal}}, Request{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Read(tt.msgs)); diff != "" {
				t.Errorf("Read (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCleanEnvelopes: OpenClaw's envelope goes whatever its header holds
// before the time; brackets that do not end in one stay.
func TestCleanEnvelopes(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"[Discord Alice +5m Wed 2026-11-25 15:30 UTC] hello everyone": "hello everyone",
		"[Signal +351912438207 Mon 2026-11-30 21:40 GMT+0] o IRS":     "o IRS",
		"[draft] Sun 2026-11-29 20:59 is when the call starts":        "[draft] Sun 2026-11-29 20:59 is when the call starts",
		"[1] see [2] and Sun 2026-11-29 20:59 UTC]":                   "[1] see [2] and Sun 2026-11-29 20:59 UTC]",
	} {
		if got := Clean(in); got != want {
			t.Errorf("Clean(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestQueryTerms(t *testing.T) {
	t.Parallel()
	r := Request{Instruction: "checkout throws 502s since 20:00, can you look?", Paste: "npm error", Context: []string{"checkout page"}}
	var got []QueryTerm
	got = append(got, r.Query(nil).Terms...)
	want := []QueryTerm{{Term: "checkout", Word: "checkout", Weight: 1}, {Term: "throw", Word: "throws", Weight: 1},
		{Term: "502s", Word: "502s", Weight: 1}, {Term: "sinc", Word: "since", Weight: 1},
		{Term: "npm", Word: "npm", Weight: WeightPaste}, {Term: "error", Word: "error", Weight: WeightPaste},
		{Term: "page", Word: "page", Weight: WeightContext1}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("terms (-want +got):\n%s", diff)
	}
}

// TestDocumentTerms: a document's words count at WeightDocument, below
// the ask's, and a word of both counts as the ask's.
func TestDocumentTerms(t *testing.T) {
	t.Parallel()
	r := Request{Instruction: "summarise the pricing notes:", Document: "pricing toggle goes live"}
	want := []QueryTerm{{Term: "summaris", Word: "summarise", Weight: 1}, {Term: "price", Word: "pricing", Weight: 1},
		{Term: "note", Word: "notes", Weight: 1}, {Term: "toggl", Word: "toggle", Weight: WeightDocument},
		{Term: "goe", Word: "goes", Weight: WeightDocument}, {Term: "live", Word: "live", Weight: WeightDocument}}
	if diff := cmp.Diff(want, r.Query(nil).Terms); diff != "" {
		t.Errorf("terms (-want +got):\n%s", diff)
	}
}

// TestOtherLanguagesRequestWords: "can you", "I want", "never", "now" in
// the other languages say nothing about the task, as in English.
func TestOtherLanguagesRequestWords(t *testing.T) {
	t.Parallel()
	for text, want := range map[string][]string{
		"Was macht diese Funktion eigentlich? Ich will nichts ändern": {"funktion", "ändern"},
		"Achas que vai chover? Quer saber a minha opinião, nunca li":  {"acha", "chover", "opinião", "li"},
		"¿Puedes ayudarme? Quiero saber algo del contrato":            {"ayudarm", "contrato"},
	} {
		var got []string
		for _, qt := range (Request{Instruction: text}).Query(nil).Terms {
			got = append(got, qt.Term)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%q terms (-want +got):\n%s", text, diff)
		}
	}
}

func TestTermsSplitsIdentifiers(t *testing.T) {
	t.Parallel()
	got := Terms("ModuleNotFoundError in HTTPServer.parse_body CrashLoopBackOff", nil)
	want := []string{"modul", "not", "found", "error", "in", "http", "server", "pars", "bodi", "crash", "loop", "back", "off"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("terms (-want +got):\n%s", diff)
	}
}

// FuzzRead: any conversation reads without a panic, and the request's
// parts stay within MaxQueryLen.
func FuzzRead(f *testing.F) {
	f.Add("[Sun 2026-11-29 20:59 UTC] hello", internal)
	f.Add("<messages><message sender=\"a\">@b x</message></messages>", "```\npanic: x\n```")
	f.Add("[IMPORTANT: The user has invoked the ", `{"text":"hi"}`)
	f.Fuzz(func(t *testing.T, a, b string) {
		r := Read([]Message{{Role: "user", Text: a}, {Role: "assistant", Text: b}, {Role: "user", Text: b}})
		if len(r.Instruction) > MaxQueryLen || len(r.Paste) > MaxQueryLen {
			t.Errorf("request parts too long: %d, %d", len(r.Instruction), len(r.Paste))
		}
		_ = r.Query(nil)
	})
}

// TestGoAheadTakesTheTask: "go ahead" and "yes, continue" ask for the task
// of the message before, which the query takes at full weight; assent
// ("sounds good") is no context; an acknowledgement with no word of going
// on ("great, thanks") and a message that says more are left as they are.
func TestGoAheadTakesTheTask(t *testing.T) {
	t.Parallel()
	msgs := func(texts ...string) []Message {
		var out []Message
		for _, s := range texts {
			out = append(out, Message{Role: "user", Text: s}, Message{Role: "assistant", Text: "ok"})
		}
		return out[:len(out)-1]
	}
	weights := func(r Request) map[string]float64 {
		m := map[string]float64{}
		for _, qt := range r.Query(nil).Terms {
			m[qt.Word] = qt.Weight
		}
		return m
	}
	r := Read(msgs("rename the scans to their dates", "sounds good", "Yes, go ahead."))
	if w := weights(r); w["rename"] != 1 || w["scans"] != 1 || w["go"] != 0 || w["sounds"] != 0 {
		t.Errorf("go ahead: context %q, weights %v", r.Context, w)
	}
	r = Read(msgs("rename the scans to their dates", "great, thanks"))
	if w := weights(r); w["rename"] != WeightContext1 || w["great"] != 1 {
		t.Errorf("an acknowledgement: weights %v", w)
	}
	r = Read(msgs("rename the scans to their dates", "go ahead but skip the pdfs"))
	if w := weights(r); w["rename"] != WeightContext1 || w["pdfs"] != 1 {
		t.Errorf("go ahead with more: weights %v", w)
	}
}

// TestClosing: a message that only thanks, says it worked or says goodbye
// closes the exchange; one that asks for more, says it still fails, pastes
// something or asks a question does not.
func TestClosing(t *testing.T) {
	t.Parallel()
	closing := []string{
		"thanks, that worked perfectly",
		"great, thanks!",
		"no thanks, that's all",
		"ok the plumber came and fixed the leak under the sink, all good now",
		"thanks!! the meeting went great btw, they loved the deck",
		"Merci beaucoup, c'est parfait ! Bonne soirée",
		"danke dir, hat super geklappt!",
		"obrigado, foste uma grande ajuda hoje!",
		"works now 🙏",
	}
	asking := []string{
		"thanks! can you also add a test for the empty case",
		"thanks, now write the changelog entry",
		"thanks but it still fails on CI",
		"thanks, it's not working on Safari though",
		"thank you — next, deploy it to staging",
		"thanks, does it handle leap years?",
		"danke, kannst du noch die README anpassen",
		"gracias, ¿puedes revisar el otro archivo también?",
		"rename the scans to their dates",
		"ok",
		"thanks " + strings.Repeat("and the report looks very good indeed ", 5),
	}
	for _, text := range closing {
		if r := Read([]Message{{Role: "user", Text: text}}); !r.Closing() {
			t.Errorf("%q: not taken for closing the exchange", text)
		}
	}
	for _, text := range asking {
		if r := Read([]Message{{Role: "user", Text: text}}); r.Closing() {
			t.Errorf("%q: taken for closing the exchange", text)
		}
	}
	withLog := Read([]Message{{Role: "user", Text: "thanks, that worked\n```\nTraceback (most recent call last):\n  File \"a.py\", line 3\nValueError: bad\n```"}})
	if withLog.Paste == "" || withLog.Closing() {
		t.Errorf("a thank-you with a pasted traceback closes the exchange: %+v", withLog)
	}
}

// TestSecretsNamedInTheQuery: a request that pastes a credential, or a
// tool loop whose command printed one, says so in the query's words; a
// request that only talks about keys and tokens does not.
func TestSecretsNamedInTheQuery(t *testing.T) {
	t.Parallel()
	r := Read([]Message{{Role: "user", Text: "use this to connect and count the events: DATABASE_URL=postgres://admin:Wint3r!sC0ming@prod-db.internal:5432/app"}})
	if !strings.Contains(r.Paste, secretKind) {
		t.Errorf("a pasted database password: %+v", r)
	}
	r = Read([]Message{{Role: "user", Text: "check the env of the api container"}, {Role: "assistant", Text: ""},
		{Role: "tool", Text: "NODE_ENV=production\nSTRIPE_SECRET_KEY=sk_live_51Habcdefghijklmnopqrstuv\nPORT=3000"}})
	if !strings.Contains(r.Tool, secretKind) || strings.Contains(r.Paste, secretKind) {
		t.Errorf("a tool result printing a key: %+v", r)
	}
	r = Read([]Message{{Role: "user", Text: "the api returns 401 when the token expires; rotate the key every hour"}})
	if strings.Contains(r.Paste+r.Tool, secretKind) {
		t.Errorf("talk of keys and tokens taken for a secret: %+v", r)
	}
}

// TestLanguageOfAShortFollowUp: a follow-up too short to tell is in the
// language of the person's earlier messages; alone it is unknown.
func TestLanguageOfAShortFollowUp(t *testing.T) {
	t.Parallel()
	follow := Request{Instruction: "¿y mañana?", Context: []string{"¿Qué tiempo hace hoy en Valencia? Quiero salir con la bici"}}
	if got := follow.Language(); got != "es" {
		t.Errorf("follow-up read as %q, want es", got)
	}
	if got := (Request{Instruction: "¿y mañana?"}).Language(); got != "" {
		t.Errorf("alone read as %q, want unknown", got)
	}
	english := Request{Instruction: "and tomorrow?", Context: []string{"¿Qué tiempo hace hoy en Valencia? Quiero salir con la bici"}}
	if got := english.Language(); got != "en" {
		t.Errorf("an English follow-up read as %q", got)
	}
}
