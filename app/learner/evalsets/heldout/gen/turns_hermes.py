"""Hermes agent turns (OpenAI shape, Telegram/CLI/cron)."""


def T(id, user, rel, acc=(), **kw):
    return dict(id=id, agent="hermes", api="openai", user=user, relevant=list(rel), acceptable=list(acc), **kw)


def sh(cmd, out, say="", code=0):
    return ("terminal", {"command": cmd}, out, say, code)


HERMES = [
    T("h001", "morning! what's on my plate today", [], day="2026-03-09"),
    T("h002", "can you set up something that checks the disk usage on my hetzner box every morning and pings me here if it's above 85%?", ["cron-scheduled-jobs"], ["robust-shell-scripts"]),
    T("h003", "I want to learn Rust properly this summer. I have about 5 hours a week. Make me a plan I can actually stick to.", ["break-down-big-task"]),
    T("h004", "summarise the paper 'Lost in the Middle: How Language Models Use Long Contexts' into 5 bullets for my reading group", ["summarize-long-document"], ["literature-search"]),
    T("h005", "for a home server, proxmox or plain debian + docker? I mostly run nextcloud, pihole and some python bots", ["compare-options-decision-table"]),
    T("h006", "write a warm but clear no to my cousin's wedding invite, we can't travel that weekend because of Sami's surgery", ["deliver-bad-news-politely"]),
    T("h007", "how much would I save a year if I cancel netflix (15.49/month), spotify (10.99) and the climbing gym (39)?", ["double-check-arithmetic-units"], ["monthly-budget"], persona="leo"),
    T("h008", "thanks hermes 🙏", []),
    T("h009", "what's the weather going to be like in Oslo this weekend", [], ["flag-outdated-information"]),
    T("h010", "remind me to drink water every 2 hours between 9 and 6 on weekdays", [], ["cron-scheduled-jobs"], note="a reminder; the agent's own scheduler does it"),
    T("h011", "write the Go code for a worker pool: jobs come from a channel, max 8 workers, results collected in order", [], ["debug-go-data-race", "go-error-handling"], persona="leo", note="real work, but no skill of the library fits it"),
    T("h012", "when does the TLS certificate for noor.dev expire? renew it if it's within two weeks", ["debug-tls-dns-connection"]),
    T("h013", "what are the rules for taking power banks on a plane these days? flying emirates next month", ["flag-outdated-information"], ["plan-travel-itinerary"]),
    T("h014", "¿Me revisas este correo antes de mandárselo a mi cliente? 'Hola Marta, te envio el presupuesto actualizado, como hablamos el lunes el precio final es 3.200 euros mas IVA. Quedo atento a tus comentarios.'", ["proofread-and-copyedit"], ["write-professional-email"], persona="leo", note="Spanish"),
    T("h015", "convert this recipe from 4 people to 10: 300g flour, 2 eggs, 150ml milk, 1 tsp salt, 40g butter", ["double-check-arithmetic-units"], ["meal-plan-grocery-list"]),
    T("h016", "what's the difference between a Rust &str and a String? short please", ["concise-answers"]),
    T("h017", "clean up my Downloads folder - delete everything older than 6 months", ["confirm-destructive-actions", "batch-file-operations-dry-run"],
      loop=[sh("find ~/Downloads -type f -mtime +180 | wc -l", "1432", "Let me see how much that is first."),
            sh("find ~/Downloads -type f -mtime +180 -printf '%s\\n' | awk '{s+=$1} END {print s/1024/1024/1024 \" GB\"}'", "38.6 GB")]),
    T("h018", "my website is down?? noor.dev doesn't load", ["debug-tls-dns-connection"],
      loop=[sh("curl -sS -o /dev/null -w '%{http_code}' https://noor.dev", "curl: (60) SSL certificate problem: certificate has expired\nMore details here: https://curl.se/docs/sslcerts.html", "", 60),
            sh("echo | openssl s_client -connect noor.dev:443 -servername noor.dev 2>/dev/null | openssl x509 -noout -dates", "notBefore=Dec  9 02:11:40 2025 GMT\nnotAfter=Mar  9 02:11:39 2026 GMT")], day="2026-03-10"),
    T("h019", "ok, and draft an email to FitPlus cancelling my membership. contract number FP-88213, I want it to end at the end of April", ["write-professional-email"], persona="leo",
      history=[("user", "help me see where my money goes, here are my fixed costs: rent 780, phone 20, gym 39, netflix 15.49, car insurance 46"),
               ("assistant", "Fixed costs come to 900.49€ a month. The gym and streaming are the easiest to drop; together they are 54.49€ a month, about 654€ a year.")]),
    T("h020", "run the test suite of ~/code/ledger and fix whatever fails", ["debug-failing-test"], ["test-before-bugfix", "verify-tool-results"], persona="leo",
      loop=[sh("cd ~/code/ledger && python -m pytest -q", "....F........\n=================================== FAILURES ===================================\n___________________________ test_monthly_interest ____________________________\n\n    def test_monthly_interest():\n        acct = Account(balance=Decimal('1000.00'), rate=Decimal('0.05'))\n>       assert acct.monthly_interest() == Decimal('4.17')\nE       AssertionError: assert Decimal('4.16') == Decimal('4.17')\n\ntests/test_interest.py:14: AssertionError\n1 failed, 12 passed in 0.41s", "", 1)]),
    T("h021", "push my side project ~/code/pricebot to a new public github repo", ["handle-secrets-safely"], ["confirm-destructive-actions"],
      loop=[sh("cd ~/code/pricebot && git status --short && ls -a", "?? .env\n?? bot.py\n?? requirements.txt\n.  ..  .env  .git  bot.py  requirements.txt"),
            ("read_file", {"path": "~/code/pricebot/.env"}, "     1|TELEGRAM_TOKEN=7781...redacted...\n     2|OPENAI_API_KEY=sk-proj-...redacted...")]),
    T("h022", "Weekly: read my journal notes from this week in ~/notes/2026-W11/ and send me a summary of what I worked on, what's open, and what slipped.", ["write-weekly-update"], ["summarize-long-document"], cron=True, day="2026-03-15",
      loop=[("search_files", {"pattern": "*.md", "path": "~/notes/2026-W11", "target": "files"}, "mon.md\ntue.md\nwed.md\nthu.md\nfri.md"),
            ("read_file", {"path": "~/notes/2026-W11/thu.md"}, "     1|- airflow: backfill for the billing DAG done, 3 days of data reprocessed\n     2|- still waiting on Farid for the BigQuery reservation\n     3|- rust: finished chapter 8 (collections)\n     4|- forgot to book the dentist again")]),
    T("h023", "install the deps for ~/code/dashboard and start the dev server", ["change-approach-after-repeated-failure"], ["upgrade-dependencies"],
      loop=[sh("cd ~/code/dashboard && npm install", "npm error code ERESOLVE\nnpm error ERESOLVE unable to resolve dependency tree\nnpm error Found: vite@6.0.3\nnpm error Could not resolve dependency: peer vite@\"^5.0.0\" from @vitejs/plugin-react@4.2.1", "", 1),
            sh("cd ~/code/dashboard && npm install", "npm error code ERESOLVE\nnpm error ERESOLVE unable to resolve dependency tree\nnpm error Found: vite@6.0.3\nnpm error Could not resolve dependency: peer vite@\"^5.0.0\" from @vitejs/plugin-react@4.2.1", "Retrying.", 1),
            sh("cd ~/code/dashboard && rm -rf node_modules && npm install", "npm error code ERESOLVE\nnpm error ERESOLVE unable to resolve dependency tree\nnpm error Found: vite@6.0.3\nnpm error Could not resolve dependency: peer vite@\"^5.0.0\" from @vitejs/plugin-react@4.2.1", "Clearing node_modules and trying again.", 1)]),
    T("h024", "random q - what's 1 USD in AED?", [], ["flag-outdated-information"], note="trivial fact after a longer different chat",
      history=[("user", "which rust book should I start with, the official one or Programming Rust?"),
               ("assistant", "Start with the official book (free, gentle, up to date), then use Programming Rust as the deeper second read."),
               ("user", "ok the official one it is")]),
    T("h025", "plan 4 days in Kyoto for me and Sami in early April, we like quiet temples and good food", ["plan-travel-itinerary"], ["verify-tool-results"],
      loop=[("web_search", {"query": "Kyoto cherry blossom forecast 2026 early April crowds"}, "[{\"title\": \"2026 Cherry Blossom Forecast - Japan\", \"url\": \"https://www.japan-guide.com/sakura/\", \"snippet\": \"Kyoto full bloom expected around March 31 - April 6...\"}, {\"title\": \"Avoiding crowds in Kyoto during sakura\", \"url\": \"https://example-travel.blog/kyoto-sakura\", \"snippet\": \"Go to Fushimi Inari before 7am, visit Ohara and Kurama for quieter temples...\"}]")]),
    T("h026", "pihole stopped resolving anything since this morning, can you fix it", ["debug-tls-dns-connection"], ["systemd-service-unit"],
      loop=[sh("dig @127.0.0.1 google.com +time=2 +tries=1", ";; communications error to 127.0.0.1#53: timed out\n;; no servers could be reached", "", 9),
            sh("systemctl status pihole-FTL --no-pager | head -5", "× pihole-FTL.service - Pi-hole FTL\n     Loaded: loaded (/etc/systemd/system/pihole-FTL.service; enabled)\n     Active: failed (Result: exit-code) since Tue 2026-03-10 06:02:11 +04; 3h ago\n    Process: 812 ExecStart=/usr/bin/pihole-FTL -f (code=exited, status=1/FAILURE)", "", 3)]),
    T("h027", "install ffmpeg on the server and convert ~/videos/talk.mov to mp4", ["verify-tool-results"], ["change-approach-after-repeated-failure"],
      loop=[sh("sudo apt-get install -y ffmpeg; ffmpeg -i ~/videos/talk.mov ~/videos/talk.mp4", "Reading package lists... Done\nE: Unable to locate package ffmpeg\nbash: ffmpeg: command not found", "Installing ffmpeg and converting.", 127)]),
    T("h028", "re-encode my whole photo archive in ~/photos (about 60,000 JPEGs) to HEIC to save space. it'll take hours, just keep me updated", ["progress-updates-long-tasks", "batch-file-operations-dry-run"], ["confirm-destructive-actions"], persona="leo"),
]
