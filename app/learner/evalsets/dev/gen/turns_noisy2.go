package main

// noisyMoreTurns: NanoClaw group chats, Hermes, chat-bot envelopes and
// pasted logs in plain clients.
var noisyMoreTurns = []spec{
	// NanoClaw: the person's message after the group's messages.
	{id: "nc01", agent: "nanoclaw", text: "can you make us a packing list and a day by day plan for Lisbon in April?",
		rel: []string{"plan-trip-itinerary"}, hist: []string{"flights are booked!! 12-18 April", "I still need to sort out the dog sitter"}},
	{id: "nc02", agent: "nanoclaw", text: "split the dinner bill: 186.40 total, Dana had the wine (38), tip 15% on everything",
		rel: []string{"double-check-arithmetic-units"}, hist: []string{"that was a great dinner", "Luis owes me for the taxi too"}},
	{id: "nc03", agent: "nanoclaw", text: "someone texted Priya saying her package is held at customs and she must pay 2.99 via a link. scam?",
		rel: []string{"spot-phishing"}, hist: []string{"did anyone get a weird text from DHL?"}},
	{id: "nc04", agent: "nanoclaw", text: "schedule a reminder for everyone on Friday at 6pm to send me their share of the rent",
		rel: []string{"cron-scheduled-jobs"}, hist: []string{"rent went up again by the way"}},
	{id: "nc05", agent: "nanoclaw", text: "put together a monthly budget for the shared flat from the spreadsheet numbers Priya posted",
		rel: []string{"household-budget"}, acc: []string{"double-check-arithmetic-units", "spreadsheet-formulas"},
		hist: []string{"rent 2100, utilities ~240, internet 45, cleaning 120, groceries we split"}},
	{id: "nc06", agent: "nanoclaw", text: "Luis is on call and says prod is down, the api pod is in CrashLoopBackOff, help him",
		rel: []string{"kubernetes-pod-crashloop"}, hist: []string{"my pager just went off", "ugh, good luck"}},
	{id: "nc07", agent: "nanoclaw", text: "is it true that you can't get a tan through a window? settle this with sources",
		rel: []string{"verify-claims-primary-sources"}, acc: []string{"cite-sources"},
		hist: []string{"I got sunburnt in the car lol", "that's not possible"}},

	// Hermes.
	{id: "h01", agent: "hermes", text: "write a python scraper for the city council's meeting minutes page and save them as PDFs",
		rel: []string{"polite-web-scraping"}, hist: []string{"what's the weather in Boston"}},
	{id: "h02", agent: "hermes", text: "our app's memory keeps climbing, can you look at the heap profile I saved in /tmp/heap.pprof?",
		rel:   []string{"memory-leak-investigation"},
		tools: []step{{"terminal", `{"command":"go tool pprof -top /tmp/heap.pprof"}`, "Showing nodes accounting for 1.62GB, 97.11% of 1.67GB total\n      flat  flat%   sum%        cum   cum%\n    1.21GB 72.46% 72.46%     1.21GB 72.46%  shop/internal/cache.(*Cache).Put\n    0.31GB 18.56% 91.02%     0.31GB 18.56%  bytes.growSlice"}}},
	{id: "h03", agent: "hermes", text: "find recent papers on mixture-of-experts routing and summarise the main findings",
		rel: []string{"literature-search"}, acc: []string{"summarize-long-document", "cite-sources"},
		hist: []string{"remind me what we discussed about the GPU budget"}},
	{id: "h04", agent: "hermes", text: "design the REST API for the notes app: notes, tags, sharing with other users",
		rel: []string{"rest-api-design"}},
	{id: "h05", agent: "hermes", text: "explain what our Kubernetes setup does to the new marketing hire, no jargon",
		rel: []string{"explain-to-non-technical-reader"}, hist: []string{"list the pods in the staging namespace"}},
	{id: "h06", agent: "hermes-skill", text: "review PR 231 and leave comments on anything risky",
		rel: []string{"code-review-checklist"}},
	{id: "h07", agent: "hermes-skill", text: "open a PR for my branch with a proper description",
		rel: []string{"write-pr-description"}, acc: []string{"write-commit-message"}},
	{id: "h08", agent: "hermes", text: "analyse the results of our pricing experiment in results.csv, variant B looks better",
		rel: []string{"analyze-ab-test"}, acc: []string{"statistics-sanity-check", "check-data-before-conclusions"},
		tools: []step{{"read_file", `{"path":"results.csv"}`, "variant,visitors,conversions,revenue\nA,8211,402,24120.00\nB,8034,431,23705.50"}}},
	{id: "h09", agent: "hermes", text: "why does my Go test hang forever? see the goroutine dump\n\ngoroutine 7 [chan receive, 10 minutes]:\nshop/internal/scheduler.(*Runner).Wait(...)\n\t/home/sam/work/shop/internal/scheduler/runner.go:88\nshop/internal/scheduler.TestRunnerStops(0xc0001a2000)\n\t/home/sam/work/shop/internal/scheduler/runner_test.go:41 +0x1b4\ntesting.tRunner(0xc0001a2000, 0x6a1d40)\n\t/usr/local/go/src/testing/testing.go:1690 +0xf4",
		rel: []string{"debug-failing-test", "read-stack-trace"}},

	// A chat bot forwarding Slack events.
	{id: "s01", agent: "slackbot", text: "can someone summarise this thread and list who owes what by when? we agreed a lot of things",
		rel: []string{"meeting-notes-action-items"}, acc: []string{"summarize-long-document"}},
	{id: "s02", agent: "slackbot", text: "translate the release notes into Japanese for the Tokyo office",
		rel: []string{"translate-and-localize"}},
	{id: "s03", agent: "slackbot", text: "draft a reply to the customer who says our invoice charged them twice, they're furious",
		rel: []string{"apologize-to-customer", "reply-to-angry-email"}, acc: []string{"deliver-bad-news-politely"}},

	// Pasted logs and errors in plain clients.
	{id: "p01", agent: "plain", text: "getting this when I start the app, any idea?\n```\nTraceback (most recent call last):\n  File \"/Users/ana/dev/tracker/main.py\", line 3, in <module>\n    import requests\nModuleNotFoundError: No module named 'requests'\n```",
		rel: []string{"python-virtualenv-dependencies"}, acc: []string{"read-stack-trace"}},
	{id: "p02", agent: "plain", text: "our nightly backup cron didn't run, here's syslog:\n```\nNov 29 03:00:01 db1 CRON[20144]: (root) CMD (/opt/backup/run.sh > /dev/null 2>&1)\nNov 29 03:00:01 db1 CRON[20143]: (CRON) info (No MTA installed, discarding output)\nNov 29 03:00:02 db1 systemd[1]: cron.service: Succeeded.\n```\nthe script works fine when I run it by hand",
		rel: []string{"cron-scheduled-jobs"}, acc: []string{"robust-shell-scripts"}},
	{id: "p03", agent: "plain", text: "npm install keeps failing with this, I tried three times already\n```\nnpm ERR! code EACCES\nnpm ERR! syscall mkdir\nnpm ERR! path /usr/local/lib/node_modules/typescript\nnpm ERR! errno -13\nnpm ERR! Error: EACCES: permission denied, mkdir '/usr/local/lib/node_modules/typescript'\n```",
		rel: []string{"change-approach-after-repeated-failure"}, acc: []string{"dont-repeat-failed-command", "review-shell-command-before-running"}},
	{id: "p04", agent: "plain-anthropic", text: "java.lang.NullPointerException: Cannot invoke \"String.length()\" because \"name\" is null\n\tat com.acme.users.UserService.normalize(UserService.java:57)\n\tat com.acme.users.UserService.create(UserService.java:31)\n\tat com.acme.api.UserController.post(UserController.java:22)\n\tat java.base/jdk.internal.reflect.DirectMethodHandleAccessor.invoke(DirectMethodHandleAccessor.java:103)\n\nwhere is this coming from",
		rel: []string{"read-stack-trace"}},
	{id: "p05", agent: "plain", text: "our error rate spiked at 14:05, here's a chunk of the log. what happened?\n```\n14:04:58 INFO  deploy: starting rollout of billing v4.2.0\n14:05:03 ERROR billing: connection refused db-replica-2:5432\n14:05:03 ERROR billing: connection refused db-replica-2:5432\n14:05:04 WARN  gateway: upstream billing 503 (x212)\n14:05:09 ERROR billing: connection refused db-replica-2:5432\n14:06:40 INFO  deploy: rollout complete\n```",
		rel: []string{"analyze-logs-incident"}},
	{id: "p06", agent: "plain", text: "what's wrong with my SQL?\n```sql\nSELECT c.name, COUNT(*)\nFROM customers c\nJOIN orders o ON o.customer_id = c.id\nJOIN order_items i ON i.order_id = o.id\nGROUP BY c.name;\n```\nthe order counts are way too high",
		rel: []string{"write-sql-query"}},
}
