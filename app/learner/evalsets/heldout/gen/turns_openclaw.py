"""OpenClaw turns (openai-completions and anthropic-messages providers)."""


def T(id, api, user, rel, acc=(), **kw):
    return dict(id=id, agent="openclaw", api=api, user=user, relevant=list(rel), acceptable=list(acc), **kw)


O, A = "openai", "anthropic"


def ex(cmd, out):
    return ("exec", {"command": cmd}, out)


def rd(path, out):
    return ("read", {"path": path}, out)


OPENCLAW = [
    T("o001", O, "good morning ☀️", [], minute=7 * 60 + 2),
    T("o002", A, "what's on my calendar tomorrow?", [], loop=[("tool_search", {"query": "calendar events"}, "calendar_list_events: List events in a time range from the user's calendars.\ncalendar_create_event: Create an event.")]),
    T("o003", O, "How do I write a commit message?", ["write-commit-message"], persona="sam", note="the issue's example, inside OpenClaw's envelope"),
    T("o004", A, "Fix the typo in the README heading", [], ["read-before-edit-file", "proofread-and-copyedit", "avoid-unrequested-changes"], persona="sam",
      loop=[rd("~/code/obsidian-clip/README.md", "# Obsidian Clipper Plguin\n\nSave web pages to your vault as Markdown.\n\n## Install\n\n1. Download the latest release.\n2. Copy it to `.obsidian/plugins/`.\n")],
      note="the issue's example: a one-word edit needs no skill; editing habits would not be wrong"),
    T("o005", O, "remind me to call the dentist at 3pm", []),
    T("o006", A, "I saved the lease to ~/Downloads/contrato_arrendamento.pdf - what should I watch out for before signing?", ["review-lease-or-contract"], ["summarize-long-document"],
      loop=[ex("pdftotext ~/Downloads/contrato_arrendamento.pdf - | head -60", "CONTRATO DE ARRENDAMENTO\nCláusula 3.ª Renda mensal de 1.150 €, paga até ao dia 8 de cada mês.\nCláusula 5.ª Caução equivalente a três rendas.\nCláusula 7.ª Renovação automática por períodos de 3 anos, salvo oposição com 120 dias de antecedência.\nCláusula 9.ª Obras de conservação a cargo do arrendatário.\nCláusula 12.ª Proibido subarrendar ou ter animais.")]),
    T("o007", O, "rename all the screenshots on my desktop so the filename starts with the date", ["batch-file-operations-dry-run"],
      loop=[("ls", {"path": "~/Desktop"}, "Screenshot 2026-02-11 at 10.14.22.png\nScreenshot 2026-02-27 at 18.03.51.png\nScreenshot 2026-03-02 at 09.40.07.png\nScreen Recording 2026-03-05 at 14.22.10.mov\nbudget-2026.numbers\nScreenshot 2026-03-09 at 21.15.33.png")]),
    T("o008", A, "reply to Marco's email - I can't make Thursday but Friday after 2 works", ["write-professional-email"],
      loop=[("tool_call", {"name": "mail_get_thread", "arguments": {"from": "marco"}}, "From: Marco Bianchi <marco@studio-bianchi.it>\nSubject: Workshop prep\n\nCiao Inês, could we meet Thursday at 11 to go through the workshop agenda? Otherwise suggest a time.\nMarco")]),
    T("o009", O, "my laptop fan is going crazy, what's eating the cpu", [], ["verify-tool-results"], persona="sam",
      loop=[ex("ps aux --sort=-%cpu | head -5", "USER   PID %CPU %MEM    VSZ   RSS TTY STAT START TIME COMMAND\nsam  48122 187  6.1 4182236 998112 ? Sl 08:01 92:13 /opt/google/chrome/chrome --type=renderer\nsam   2231  22.4  1.3  912344 210112 ? Ssl 07:58 11:02 /usr/bin/syncthing serve\nsam   9912  4.0  0.8  512004 130224 ? Sl 08:30 1:12 node /home/sam/code/blog/node_modules/.bin/astro dev")],
      note="diagnosis with tools; no skill fits"),
    T("o010", A, "deploy the blog to production", ["confirm-destructive-actions"], ["plan-before-tool-use"], persona="sam"),
    T("o011", O, "can you look at why `npm test` fails in ~/code/recipes-app", ["debug-failing-test"], ["read-stack-trace"], persona="sam",
      loop=[ex("cd ~/code/recipes-app && npm test -- --silent", " FAIL  src/lib/scale.test.ts\n  ● scaleRecipe › scales grams for 6 servings\n\n    expect(received).toEqual(expected)\n\n    - Expected  - 1\n    + Received  + 1\n\n      Object {\n    -   \"flour\": 450,\n    +   \"flour\": 449.99999999999994,\n      }\n\n      at Object.<anonymous> (src/lib/scale.test.ts:12:32)\n\nTests:       1 failed, 27 passed, 28 total")]),
    T("o012", A, "draft my weekly update for the team from what I committed this week", ["write-weekly-update"], persona="sam",
      loop=[ex("cd ~/code/work-api && git log --since='last monday' --author=sam --oneline", "d81f2a0 billing: retry webhook delivery with backoff\n6c0a9e3 billing: store webhook attempts\n41bb7d2 fix: 500 on empty invoice list\n0e9c2f1 docs: runbook for webhook outages")]),
    T("o013", O, "set up a nightly backup of ~/finance/ledger.db to the NAS (mounted at /mnt/nas)", ["backup-restore-database", "cron-scheduled-jobs"], ["robust-shell-scripts"], persona="sam"),
    T("o014", A, "what's 2^32", []),
    T("o015", O, "thank you!! you're a lifesaver", [],
      history=[("user", "can you find the PDF invoice from the plumber in my mail and save it to ~/Documents/casa?"),
               ("assistant", "Saved it as ~/Documents/casa/2026-03-02_canalizador_fatura.pdf (from Luís Ferreira, 185,00 €).")]),
    T("o016", A, "my GitHub token is in ~/.config/gh/hosts.yml - paste it here so I can copy it to my other laptop", ["handle-secrets-safely"], persona="sam"),
    T("o017", O, "I think my OpenRouter key was visible in a screenshot I posted on Bluesky an hour ago. what now", ["rotate-leaked-credential"], persona="sam"),
    T("o018", A, "is this sms a scam? 'CTT: a sua encomenda está retida. Pague 1,99 EUR de taxas em ctt-pt-entregas.com'", ["spot-phishing"]),
    T("o019", O, "I want the weather-digest script to run every morning at 7 - cron or a systemd timer?", ["cron-scheduled-jobs"], ["systemd-service-unit"], persona="sam"),
    T("o020", A, "run the calendar sync script again", ["python-virtualenv-setup"], ["read-stack-trace"], persona="jonas",
      loop=[ex("python3 ~/shop/scripts/sync_calendar.py", "Traceback (most recent call last):\n  File \"/home/jonas/shop/scripts/sync_calendar.py\", line 3, in <module>\n    import caldav\nModuleNotFoundError: No module named 'caldav'"),
            ex("pip install caldav", "error: externally-managed-environment\n\n× This environment is externally managed\n╰─> To install Python packages system-wide, try apt install python3-xyz, where xyz is the package you are trying to install.")]),
    T("o021", O, "what's the difference between a PPR and a normal savings account in Portugal", [], ["flag-outdated-information", "monthly-budget"], note="factual question"),
    T("o022", A, "plan a weekend in Porto with Rui, arriving Saturday morning by train", ["plan-travel-itinerary"]),
    T("o023", O, "split the Airbnb: 1,236.40€ for 4 nights, 5 people, but Ana only stayed 2 of the nights", ["double-check-arithmetic-units"], ["monthly-budget"]),
    T("o024", A, "turn this voice memo transcript into a todo list: 'ok so tomorrow I need to send the invoice to Hoffmann, um, call the bike supplier about the broken frames, order more chain oil, and at some point fix the shipping rates on the shop because DHL changed them, oh and Steuerberater appointment is on the 20th'", ["meeting-notes-action-items"], ["break-down-big-task"], persona="jonas"),
    T("o025", O, "write me a haiku about the first warm day of spring", []),
    T("o026", A, "ok forget that for now. how do I make a pivot table in Google Sheets showing spend by category per month?", ["spreadsheet-formulas"],
      history=[("user", "why does my invoice script print the totals twice?"),
               ("assistant", "The loop over orders calls print_total() and the function itself prints too; remove one of the two prints."),
               ("user", "hm it still does it"),
               ("assistant", "Then the template prints it as well: line 42 of invoice.html renders {{ total }} a second time. Want me to remove that one?")]),
    T("o027", O, "start the shop's dev stack", ["debug-docker-container"], persona="jonas",
      loop=[ex("cd ~/shop && docker compose up -d", "[+] Running 2/3\n ✔ Container shop-mysql-1  Started\n ✔ Container shop-redis-1  Started\n ✘ Container shop-web-1    Error\nError response from daemon: driver failed programming external connectivity on endpoint shop-web-1: Bind for 0.0.0.0:80 failed: port is already allocated")]),
    T("o028", A, "what did I ask you yesterday about the lease?", [], note="a memory question, not a skill"),
    T("o029", O, "grocery list for tacos for 8 people, two are vegetarian", ["meal-plan-grocery-list"]),
    T("o030", A, "sync my notes repo", ["resolve-merge-conflict"], persona="sam",
      loop=[ex("cd ~/notes && git pull", "Auto-merging daily/2026-03-09.md\nCONFLICT (content): Merge conflict in daily/2026-03-09.md\nAutomatic merge failed; fix conflicts and then commit the result.")]),
    T("o031", O, "what does my neighbour want? 'Hoi! Wil je volgende week de container buiten zetten? Wij zijn op vakantie. Bedankt!'", ["translate-and-localize"], persona="jonas"),
    T("o032", A, "I have an interview for a backend role at a bank next week. Update my CV for it, it's ~/Documents/cv.md", ["tailor-resume"], ["read-before-edit-file"], persona="sam",
      loop=[rd("~/Documents/cv.md", "# Sam Okoye\nBackend engineer, Seattle\n\n## Experience\n**Senior Engineer, Parcelly (2021-now)**\n- Worked on the billing service\n- Responsible for on-call\n- Did the Postgres upgrade\n\n**Engineer, Brightline Health (2017-2021)**\n- Built APIs in Go\n- Helped with HIPAA audit\n")]),
    T("o033", O, "Schreib eine kurze Antwort an den Kunden: das Fahrrad kommt erst nächste Woche, weil der Rahmen beim Lackieren beschädigt wurde. Entschuldige dich, aber nicht übertrieben.", ["deliver-bad-news-politely"], ["write-professional-email"], persona="jonas", note="German"),
    T("o034", A, "the monthly sales export looks weird, can you check it before I send it to the accountant?", ["check-data-before-conclusions", "clean-csv-data"], persona="jonas",
      loop=[ex("head -5 ~/shop/exports/sales_2026-02.csv && wc -l ~/shop/exports/sales_2026-02.csv", "order_id;date;total;currency\n10231;2026-02-01;1.249,00;EUR\n10232;2026-02-01;;EUR\n10232;2026-02-01;389,00;EUR\n10233;01/02/2026;2.100,00;EUR\n412 /home/jonas/shop/exports/sales_2026-02.csv")]),
    T("o035", O, "move my whole Evernote export (~/Downloads/evernote.enex, about 2,300 notes) into the Obsidian vault with a folder per notebook. tell me your plan before you touch anything", ["plan-before-tool-use"], ["batch-file-operations-dry-run"]),
    T("o036", A, "change the Caddy config so it also serves www.inescarvalho.pt, then reload it", ["read-before-edit-file"], ["verify-tool-results", "confirm-destructive-actions"],
      loop=[ex("ls /etc/caddy", "Caddyfile\nCaddyfile.bak-2025-11\nconf.d")]),
]
