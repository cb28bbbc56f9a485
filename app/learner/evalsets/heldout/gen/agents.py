"""Request bodies in the shapes real agents send (issue 20's held-out set).

Each wrapper takes the content of one labelled turn - earlier history, the
current ask, and the tool loop the agent ran for it - and returns the whole
request body as the agent would send it. The shapes follow what was
observed or documented for each agent (see ../README.md for sources); the
prose of the system prompts is written here, shorter than the originals.
"""

import datetime as dt
import hashlib
import json

# ---------------------------------------------------------------- helpers


def hid(*parts, n=24):
    """A deterministic hex id."""
    return hashlib.sha1("|".join(str(p) for p in parts).encode()).hexdigest()[:n]


def when(day, minute_of_day):
    """A UTC datetime for day 'YYYY-MM-DD' at the given minute."""
    d = dt.datetime.strptime(day, "%Y-%m-%d").replace(tzinfo=dt.timezone.utc)
    return d + dt.timedelta(minutes=minute_of_day)


EPHEMERAL = {"type": "ephemeral"}

# ---------------------------------------------------------------- OpenClaw

OC_TOOLS = [
    ("apply_patch", "Apply a unified patch to one or more files in the workspace.",
     {"patch": {"type": "string", "description": "Patch text in the apply_patch format."}}, ["patch"]),
    ("edit", "Replace an exact text span in a file. Read the file first.",
     {"path": {"type": "string"}, "old_text": {"type": "string"}, "new_text": {"type": "string"}},
     ["path", "old_text", "new_text"]),
    ("exec", "Run a shell command on the host. Long-running commands keep an exec session you can poll with `process`.",
     {"command": {"type": "string"}, "cwd": {"type": "string"}, "timeout_ms": {"type": "number"},
      "background": {"type": "boolean"}}, ["command"]),
    ("ls", "List a directory.", {"path": {"type": "string"}, "depth": {"type": "number"}}, ["path"]),
    ("openclaw", "Inspect or change OpenClaw itself: status, config, channels, cron reminders.",
     {"action": {"type": "string"}, "args": {"type": "object"}}, ["action"]),
    ("process", "Poll, write to or stop an exec session.",
     {"session": {"type": "string"}, "action": {"type": "string", "enum": ["poll", "write", "kill"]},
      "input": {"type": "string"}}, ["session", "action"]),
    ("read", "Read a text file, or a page of it.",
     {"path": {"type": "string"}, "offset": {"type": "number"}, "limit": {"type": "number"},
      "cursor": {"type": "string"}, "optional": {"type": "boolean"}}, ["path"]),
    ("sessions_yield", "Hand the turn back to the user while background work continues.",
     {"note": {"type": "string"}}, []),
    ("tool_call", "Call a deferred tool by name with JSON arguments.",
     {"name": {"type": "string"}, "arguments": {"type": "object"}}, ["name"]),
    ("tool_describe", "Show the schema of a deferred tool.", {"name": {"type": "string"}}, ["name"]),
    ("tool_search", "Search the deferred tools (calendar, mail, messaging, browser, notes...).",
     {"query": {"type": "string"}}, ["query"]),
    ("write", "Create or overwrite a file.", {"path": {"type": "string"}, "content": {"type": "string"}},
     ["path", "content"]),
]

OC_PERSONAS = {
    "ines": {
        "tz": "Europe/Lisbon", "host": "ines-mbp", "os": "darwin 25.1.0", "repo": "~/.openclaw/workspace",
        "memory_md": "# MEMORY.md\n- 2026-01: Rui's birthday 14 June; likes natural wine, hates surprises.\n- Inês pays rent on the 8th (1,150 EUR); landlord Sr. Matos answers only by phone.\n- Weekly budget review on Sundays in the 'Casa' spreadsheet.\n- Pastel's vet: Clínica do Bairro, vaccines due in October.\n- Work: design system migration at the startup; weekly update to Joana every Friday.\n- Prefers the Sintra train from Rossio; hates driving in Lisbon.\n", "tools_md": "# TOOLS.md\n- Mail: himalaya CLI, account 'pessoal'.\n- Calendar: gcal via tool_search 'calendar'.\n- Notes vault: ~/Notes (Obsidian), daily notes in Diário/.\n- Printer: 'Brother-sala' on the LAN.\n",
        "user_md": "# USER.md\n- Name: Inês Carvalho\n- Pronouns: she/her\n- Lives in Lisbon, works as a product designer at a travel startup\n- Partner: Rui. Cat: Pastel.\n- Likes: short answers, bullet points, no emoji walls\n- Calendar: Google (work), iCloud (personal)\n- Languages: Portuguese, English; some French\n",
    },
    "jonas": {
        "tz": "Europe/Berlin", "host": "jonas-thinkpad", "os": "linux 6.8.0-48-generic", "repo": "~/shop",
        "memory_md": "# MEMORY.md\n- Shop stack: Shopware 6 in Docker Compose (web, mysql, redis) in ~/shop; deploy script ~/shop/deploy.sh.\n- Supplier for frames: Rahmenwerk GmbH (contact Herr Vogel); chains from Velotech.\n- DHL business account; shipping rates table in shipping.csv.\n- Backups: nightly mysqldump to the Synology, checked monthly.\n- Steuerberaterin: Frau Lindqvist, needs the sales export by the 5th.\n", "tools_md": "# TOOLS.md\n- Python scripts live in ~/shop/scripts (system python3; no venv yet).\n- Label printer: Zebra on USB.\n- SSH: 'shop-prod' host in ~/.ssh/config.\n",
        "user_md": "# USER.md\n- Name: Jonas Weber\n- Hamburg. Runs a small online shop for refurbished bikes (Shopware + a few Python scripts)\n- Writes to customers in German, to suppliers in English\n- Prefers that you ask before sending anything on his behalf\n- Accountant: Frau Lindqvist, invoices due on the 5th\n",
    },
    "sam": {
        "tz": "America/Los_Angeles", "host": "homelab", "os": "linux 6.1.0-27-amd64", "repo": "~/code",
        "memory_md": "# MEMORY.md\n- Home lab: Proxmox host 'pve1', NAS at /mnt/nas (Synology, NFS), Pi-hole on 'pi3'.\n- Blog: Astro site in ~/code/blog, deployed with `make deploy` to a VPS behind Caddy.\n- Sam's team at work uses Conventional Commits and squash merges; PR template is mandatory.\n- Ada's school: pick-up 3pm Tue/Thu; Theo's daycare closes at 5:30.\n- Budget: mortgage 2,480 USD, daycare 1,650 USD; reviews spending on the 1st.\n- finance ledger is SQLite at ~/finance/ledger.db (beancount import script nearby).\n", "tools_md": "# TOOLS.md\n- gh CLI logged in as sam-okoye.\n- Go 1.23, Node 22, Python 3.12 via uv.\n- Cameras: 'porch' and 'garage' in Frigate on pve1.\n- Restic backups to B2 every night at 01:30 (see ~/bin/backup.sh).\n",
        "user_md": "# USER.md\n- Name: Sam Okoye\n- Seattle. Backend engineer (Go, Postgres); home lab with Proxmox, a NAS and too many Raspberry Pis\n- Likes seeing the exact commands you ran\n- Kids: Ada (7) and Theo (4)\n- Do not touch ~/code/work without asking\n",
    },
}

OC_SKILLS_BLOCK = """<available_skills>
  <skill><name>weather</name><description>Current weather and forecasts via the wttr.in API.</description><location>~/.openclaw/skills/weather/SKILL.md</location></skill>
  <skill><name>github</name><description>Work with GitHub issues, PRs and CI through the gh CLI.</description><location>~/.openclaw/skills/github/SKILL.md</location></skill>
  <skill><name>calendar</name><description>Read and create events in the user's calendars.</description><location>~/.openclaw/skills/calendar/SKILL.md</location></skill>
  <skill><name>notes</name><description>Search and append to the user's Markdown notes vault.</description><location>~/.openclaw/skills/notes/SKILL.md</location></skill>
  <skill><name>summarize-url</name><description>Fetch a web page or PDF and summarise it.</description><location>~/.openclaw/skills/summarize-url/SKILL.md</location></skill>
</available_skills>"""


def oc_stable(persona):
    p = OC_PERSONAS[persona]
    tools = "\n".join(f"- {name}: {desc}" for name, desc, _, _ in OC_TOOLS)
    return f"""<!-- openclaw:attempt:STABLE -->
You are a personal assistant running inside OpenClaw on the user's own machine. You act through tools; answer in plain text when no tool is needed.

## Tooling
Tool availability (filtered by policy):
{tools}
More than forty further tools (calendar, mail, messaging, browser, notes, reminders) are deferred: find them with tool_search, inspect with tool_describe, call with tool_call.

## Tool Call Style
Default: do not narrate routine, low-risk tool calls; just call the tool. Narrate only when it helps: multi-step work, sensitive or destructive actions, or when the user asked to be told.

## Safety
You have no independent goals. Do not run destructive commands, spend money or send messages for the user without a clear request. Never print secrets you find on disk.

## Skills (mandatory)
Before replying: scan <available_skills> <description> entries.
- If exactly one skill clearly applies: read its SKILL.md at <location>, then follow it.
- If several could apply: choose the most specific one.
- If none clearly apply: do not read any SKILL.md.
{OC_SKILLS_BLOCK}

## Memory Recall
Before answering anything about prior work, decisions, dates, people or preferences, search the memory notes under memory/ first.

## Workspace
Your working directory is {p["repo"]}. Workspace files below are loaded on every run.

# Project Context

## AGENTS.md
# AGENTS.md - how to work here
- Read SOUL.md and USER.md at the start of every session.
- Daily notes go to memory/YYYY-MM-DD.md; long-term facts to MEMORY.md.
- In group chats, answer only when addressed.
- Ask before anything that leaves the machine: emails, posts, payments.

## SOUL.md
# SOUL.md
Be genuinely helpful, not performatively helpful. Have opinions. Be resourceful before asking. Earn trust through competence. Remember you are a guest in someone's life.

## IDENTITY.md
- Name: Clawd
- Creature: a small helpful lobster
- Vibe: calm, dry humour

{p["user_md"]}
## MEMORY.md
{p["memory_md"]}
## TOOLS.md
{p["tools_md"]}
## HEARTBEAT.md
# HEARTBEAT.md
- Every morning: check the calendar for the next 24 hours and unread mail from family.
- Weekly on Sunday: remind about the budget review and overdue todos.
"""


def oc_dynamic(persona, at):
    p = OC_PERSONAS[persona]
    return f"""<!-- openclaw:attempt:DYNAMIC -->
## Current Date & Time
Time zone: {p["tz"]}
Now: {at.strftime("%A %Y-%m-%d %H:%M")} UTC

## Directives
Reply in the user's language. Keep messages short on chat channels.

## Model
You are running as {{model}} via a custom provider."""


def oc_prefix(at):
    return at.strftime("[%a %Y-%m-%d %H:%M UTC] ")


def oc_runtime(persona, session, model):
    p = OC_PERSONAS[persona]
    return (f"\n\nRuntime: agent=main | session={session} | host={p['host']} | repo={p['repo']} | "
            f"os={p['os']} | node=v24.16.0 | model={model}")


OC_CONTEXTS = [
    "Active exec sessions: none\nActive subagents: none",
    "Active exec sessions:\n- exec-7c2e (running 00:41:10): npm run dev\nActive subagents: none",
    "Active exec sessions: none\nActive subagents:\n- research-1 (idle): \"compare e-bike insurance offers\"",
]


def oc_context(k):
    return ("<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\n" + OC_CONTEXTS[k % len(OC_CONTEXTS)] +
            "\nPending cron reminders: 2\n<<<END_OPENCLAW_INTERNAL_CONTEXT>>>")


def oc_call_id(tid, i):
    return "call" + hid(tid, i, n=24)  # OpenClaw strips the underscore


def openclaw(t):
    """An OpenClaw request: envelope date prefix, Runtime line on a session's
    first user message, internal context as the last message."""
    persona, api = t.get("persona", "ines"), t["api"]
    model = t.get("model") or ("claude-sonnet-4-5" if api == "anthropic" else "gpt-5-mini")
    session = "s-" + hid(t["id"], "session", n=8)
    at = when(t.get("day", "2026-03-10"), t.get("minute", 9 * 60 + 5))
    hist = t.get("history", [])
    turns = []  # (role, text) with prefixes
    start = at - dt.timedelta(minutes=4 * len(hist))
    for i, (role, text) in enumerate(hist):
        if role == "user":
            text = oc_prefix(start + dt.timedelta(minutes=4 * i)) + text
            if i == 0:
                text += oc_runtime(persona, session, model)
        turns.append((role, text))
    cur = oc_prefix(at) + t["user"] + (oc_runtime(persona, session, model) if not hist else "")
    ctx = oc_context(len(t["id"]))
    if api == "openai":
        return oc_openai(t, persona, model, at, turns, cur, ctx)
    return oc_anthropic(t, persona, model, at, turns, cur, ctx)


def oc_openai(t, persona, model, at, turns, cur, ctx):
    msgs = [{"role": "system", "content": oc_stable(persona) + "\n" + oc_dynamic(persona, at).replace("{model}", model)}]
    msgs += [{"role": r, "content": x} for r, x in turns]
    msgs.append({"role": "user", "content": cur})
    for i, (name, args, result) in enumerate(t.get("loop", [])):
        cid = oc_call_id(t["id"], i)
        msgs.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": cid, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}]})
        msgs.append({"role": "tool", "content": result, "tool_call_id": cid})
    msgs.append({"role": "user", "content": [{"type": "text", "text": ctx}]})
    tools = [{"type": "function", "function": {"name": n, "description": d, "parameters": {
        "type": "object", "properties": props, "required": req}}} for n, d, props, req in OC_TOOLS]
    return {"model": model, "messages": msgs, "tools": tools, "tool_choice": "auto", "stream": True,
            "stream_options": {"include_usage": True}, "max_completion_tokens": 8192}


def oc_anthropic(t, persona, model, at, turns, cur, ctx):
    msgs = [{"role": r, "content": x} for r, x in turns]
    msgs.append({"role": "user", "content": [{"type": "text", "text": cur, "cache_control": EPHEMERAL}]})
    loop = t.get("loop", [])
    for i, (name, args, result) in enumerate(loop):
        uid = "toolu" + hid(t["id"], i, n=22)
        msgs.append({"role": "assistant", "content": [{"type": "tool_use", "id": uid, "name": name, "input": args}]})
        res = {"type": "tool_result", "tool_use_id": uid, "content": result, "is_error": False}
        if i == len(loop) - 1:
            res["cache_control"] = EPHEMERAL
        msgs.append({"role": "user", "content": [res]})
    msgs.append({"role": "user", "content": [{"type": "text", "text": ctx}]})
    tools = [{"name": n, "description": d, "input_schema": {"type": "object", "properties": props, "required": req}}
             for n, d, props, req in OC_TOOLS]
    tools[-1]["cache_control"] = EPHEMERAL
    return {"model": model, "max_tokens": 8192, "stream": True,
            "system": [{"type": "text", "text": oc_stable(persona), "cache_control": EPHEMERAL},
                       {"type": "text", "text": oc_dynamic(persona, at).replace("{model}", model)}],
            "messages": msgs, "tools": tools}

# ---------------------------------------------------------------- Claude Code

CC_BASH_DESCRIPTION = """Runs a bash command in a persistent shell session with an optional timeout (up to 10 minutes).

Before running a command:
- If it creates files or folders, check first with ls that the parent folder exists.
- Quote paths that contain spaces.
- Prefer Grep, Glob and Read over grep, find, cat and head.
- Chain dependent commands with &&; use ; only when a failure should not stop the rest.

# Committing changes with git
Only commit when the user asks. Then:
1. Run git status, git diff (staged and unstaged) and git log -n 5 in parallel to see the changes and the repository's message style.
2. Draft a concise message that says why the change was made, not only what changed; do not commit files that may hold secrets (.env, credentials).
3. Stage the relevant files, commit with the message passed through a HEREDOC, then run git status to confirm.
4. If a pre-commit hook changes files, include them and retry once. Never use --no-verify, never force-push, never change git config, and do not push unless asked.

# Creating pull requests
Use the gh CLI for GitHub work. To open a PR:
1. Check git status, the diff against the base branch and every commit on the branch, not just the last one.
2. Push the branch with -u if needed, then gh pr create with a title and a body made of a short summary (1-3 bullets) and a test plan checklist.
3. Return the PR URL when done."""

CC_TODO_DESCRIPTION = """Create and manage a structured task list for the current session. Use it for work with three or more distinct steps, when the user gives several tasks at once, or when new requirements appear mid-task. Mark a task in_progress before starting it and completed right after finishing it; keep only one task in progress. Do not use it for a single trivial step or for purely conversational requests."""

CC_TOOLS = [
    ("Task", "Launch a sub-agent for a multi-step search or task and get its final report back.",
     {"description": {"type": "string"}, "prompt": {"type": "string"}, "subagent_type": {"type": "string"}},
     ["description", "prompt", "subagent_type"]),
    ("Bash", CC_BASH_DESCRIPTION,
     {"command": {"type": "string"}, "description": {"type": "string"}, "timeout": {"type": "number"},
      "run_in_background": {"type": "boolean"}}, ["command"]),
    ("Glob", "Find files by glob pattern, newest first.", {"pattern": {"type": "string"}, "path": {"type": "string"}},
     ["pattern"]),
    ("Grep", "Search file contents with ripgrep regular expressions.",
     {"pattern": {"type": "string"}, "path": {"type": "string"}, "glob": {"type": "string"},
      "output_mode": {"type": "string", "enum": ["content", "files_with_matches", "count"]}}, ["pattern"]),
    ("Read", "Read a file with line numbers. Absolute paths only.",
     {"file_path": {"type": "string"}, "offset": {"type": "number"}, "limit": {"type": "number"}}, ["file_path"]),
    ("Edit", "Replace an exact string in a file you have read in this session.",
     {"file_path": {"type": "string"}, "old_string": {"type": "string"}, "new_string": {"type": "string"},
      "replace_all": {"type": "boolean"}}, ["file_path", "old_string", "new_string"]),
    ("Write", "Write a whole file.", {"file_path": {"type": "string"}, "content": {"type": "string"}},
     ["file_path", "content"]),
    ("TodoWrite", CC_TODO_DESCRIPTION,
     {"todos": {"type": "array", "items": {"type": "object"}}}, ["todos"]),
    ("WebFetch", "Fetch a URL and answer a question about its content.",
     {"url": {"type": "string"}, "prompt": {"type": "string"}}, ["url", "prompt"]),
    ("WebSearch", "Search the web.", {"query": {"type": "string"}}, ["query"]),
]

CC_IDENTITY = "You are Claude Code, Anthropic's official CLI for Claude."
SDK_IDENTITY = "You are a Claude agent, built on Anthropic's Claude Agent SDK."

CC_INSTRUCTIONS = """
You are an interactive command-line tool that helps people with software engineering work. Use the instructions below and your tools.

# Tone and style
Be brief and direct; your output is shown in a terminal. Explain a non-trivial command before you run it. Do not add preamble or a summary of what you just did unless asked.

# Doing tasks
- Search the codebase to understand it before changing it; follow its conventions and existing libraries.
- Plan multi-step work with the TodoWrite tool and mark items done as you finish them.
- Verify your work with the project's own build, lint and test commands; look them up in the README or CLAUDE.md rather than guessing.
- Never commit unless the user asks you to.

# Tool usage
- Prefer the dedicated tools (Read, Edit, Grep, Glob) to shell equivalents.
- Run independent tool calls in parallel in one message.

# Code references
When pointing at code, use the file_path:line_number form.
"""


def cc_env(project, day):
    return (f"\n<env>\nWorking directory: {project['dir']}\nIs directory a git repo: Yes\nPlatform: linux\n"
            f"OS Version: Linux 6.8.0-52-generic\nToday's date: {day}\n</env>\n"
            "You are powered by the model named Sonnet 4.5. The exact model ID is claude-sonnet-4-5-20250929.\n\n"
            f"gitStatus: This is the git status at the start of the conversation.\nCurrent branch: {project['branch']}\n\n"
            f"Main branch (you will usually use this for PRs): main\n\nStatus:\n{project['status']}\n\n"
            f"Recent commits:\n{project['commits']}")


CC_PROJECTS = {
    "ledger": {"dir": "/home/mara/code/ledger-api", "branch": "feat/statement-export",
               "status": " M internal/export/csv.go\n?? internal/export/csv_test.go",
               "commits": "a41c9e2 fix(api): return 404 for unknown account\n7d02b1f feat(export): skeleton for CSV statements\n3c8e551 chore: bump pgx to v5.7.1",
               "claude_md": "# ledger-api\n\nGo 1.23 service, Postgres 16 through pgx/v5, HTTP with chi.\n\n## Commands\n- `make test` runs unit tests; `make itest` needs Docker (testcontainers).\n- `make lint` runs golangci-lint v1.61.\n\n## Conventions\n- Conventional Commits (`feat(scope): ...`).\n- Errors wrap with `fmt.Errorf(\"...: %w\", err)`.\n- Never edit files under internal/db/gen: they are generated by sqlc from queries/*.sql (`make generate`).\n- Money is int64 cents everywhere.\n"},
    "recipes": {"dir": "/home/kai/src/recipes-web", "branch": "main",
                "status": "(clean)",
                "commits": "e1f0a77 Merge pull request #88 from kai/search-filters\nb93d210 search: filter by diet\n51aa0c3 chore(deps): bump next from 14.2.3 to 14.2.15",
                "claude_md": "# recipes-web\n\nNext.js 14 (app router) + TypeScript strict, Tailwind, Prisma on Postgres.\n\n- Package manager: pnpm. `pnpm test` runs vitest, `pnpm e2e` runs Playwright.\n- Components live in src/components, one folder per component with its test.\n- Keep PRs small; the PR template is in .github/pull_request_template.md.\n- Mobile first: check 375px width.\n"},
    "shopfront": {"dir": "/srv/dev/shopfront", "branch": "upgrade/django-5",
                  "status": " M pyproject.toml\n M poetry.lock",
                  "commits": "0b7aa12 orders: cache shipping quotes\n9fd1c03 Pin celery<5.4\n2e44b8d Add tenant_id index",
                  "claude_md": "# shopfront\n\nDjango 4.2 monolith, Python 3.11, Poetry, Celery + Redis, Postgres.\n\n## Local\n`docker compose up -d db redis` then `poetry run pytest -q`.\n\n## Rules\n- Migrations: one per PR, never edit an applied migration.\n- Use Decimal for prices (`MoneyField`).\n- Tests go next to the app in tests/.\n- Settings come from env vars via django-environ; never commit .env.\n"},
    "pipeline": {"dir": "/home/ravi/work/etl-pipeline", "branch": "ravi/speedup-import",
                 "status": " M etl/import_products.py",
                 "commits": "c0ffee1 import: add supplier feed B\n8a7e6d2 fix encoding of supplier names\n77b1f0e initial airflow dag",
                 "claude_md": "# etl-pipeline\n\nPython 3.12 ETL jobs (pandas 2.2, SQLAlchemy 2) orchestrated by Airflow.\n\n- `uv run pytest` for tests; `uv run ruff check .` for lint.\n- Data samples in data/samples/ (small, committed). Never commit full supplier files.\n- Jobs must be idempotent: reruns of a day overwrite that day's partition.\n"},
    "infra": {"dir": "/home/ops/infra", "branch": "main",
              "status": " M k8s/api/deployment.yaml",
              "commits": "4d3c2b1 api: raise memory limit to 512Mi\n1a2b3c4 add grafana dashboard for queue depth\nf00dbab terraform: move state to s3 backend",
              "claude_md": "# infra\n\nKubernetes manifests (kustomize) for staging and prod, Terraform for AWS.\n\n- Contexts: `staging` and `prod`. NEVER apply to prod from a laptop; prod goes through the deploy pipeline.\n- `make diff ENV=staging` before any apply.\n- Secrets live in AWS Secrets Manager, synced by external-secrets.\n"},
    "notes": {"dir": "/home/lena/projects/md2anki", "branch": "main",
              "status": " M README.md",
              "commits": "9e8d7c6 cli: add --dry-run\n5f4e3d2 parse cloze deletions\n1c2b3a4 first release 0.1.0",
              "claude_md": "# md2anki\n\nSmall open-source CLI: converts Markdown notes to Anki decks. Python 3.10+, Typer, genanki.\n\n- `pipx install -e .` for a dev install; `pytest` for tests.\n- Keep the README short; user docs are in docs/.\n- Changelog follows Keep a Changelog.\n"},
}

CC_SKILLS_REMINDER = """<system-reminder>
The following skills are available for use with the Skill tool:

- pdf: Extract text and tables from PDF files, fill PDF forms.
- xlsx: Create and edit spreadsheets with formulas and formatting.
- frontend-design: Build distinctive, production-grade web interfaces.
</system-reminder>"""


def cc_claude_md(path, text, day, note):
    return ("<system-reminder>\nAs you answer the user's questions, you can use the following context:\n# claudeMd\n"
            "Codebase and user instructions are shown below. Be sure to adhere to these instructions. "
            "IMPORTANT: These instructions OVERRIDE any default behavior and you MUST follow them exactly as written.\n\n"
            f"Contents of {path} ({note}):\n\n{text}\n# currentDate\nToday's date is {day}.\n\n"
            "      IMPORTANT: this context may or may not be relevant to your tasks. You should not respond to this "
            "context unless it is highly relevant to your task.\n</system-reminder>\n")


READ_REMINDER = ("\n\n<system-reminder>\nWhenever you read a file, you should consider whether it would be considered "
                 "malware. You CAN and SHOULD provide analysis of malware, what it is doing. But you MUST refuse to "
                 "improve or augment the code.\n</system-reminder>\n")

TODO_REMINDER = ("<system-reminder>\nThe TodoWrite tool hasn't been used recently. If you're working on tasks that "
                 "would benefit from tracking progress, consider using the TodoWrite tool. This is just a gentle "
                 "reminder - ignore if not applicable.\n</system-reminder>")


def cc_result(name, result):
    """Claude Code shows Read results with line numbers and a reminder."""
    if name != "Read":
        return result
    lines = result.split("\n")
    return "\n".join(f"{i + 1:>6}\u2192{line}" for i, line in enumerate(lines)) + READ_REMINDER


def cc_user_blocks(t, first, text, day):
    blocks = []
    if first:
        if t.get("skills_reminder", True):
            blocks.append({"type": "text", "text": CC_SKILLS_REMINDER})
        if t["agent"] == "nanoclaw":
            blocks.append({"type": "text", "text": cc_claude_md(
                "/workspace/group/CLAUDE.md", NANO_GROUPS[t.get("group", "family")]["claude_md"], day,
                "project instructions, checked into the codebase")})
        else:
            p = CC_PROJECTS[t["project"]]
            blocks.append({"type": "text", "text": cc_claude_md(
                p["dir"] + "/CLAUDE.md", p["claude_md"], day, "project instructions, checked into the codebase")})
    elif t.get("ide"):
        blocks.append({"type": "text", "text": "<system-reminder>\nThe user opened the file " + t["ide"] +
                       " in the IDE. This may or may not be related to the current task.\n</system-reminder>"})
    blocks.append({"type": "text", "text": text})
    return blocks


def claude_code(t):
    """A Claude Code (or Agent SDK, for NanoClaw) request: system blocks,
    reminders in the first user message, tool_use/tool_result loops."""
    day = t.get("day", "2026-03-04")
    hist, loop = t.get("history", []), t.get("loop", [])
    msgs = []
    for i, item in enumerate(hist):
        role, text = item[0], item[1]
        if role == "user":
            msgs.append({"role": "user", "content": cc_user_blocks(t, i == 0, text, day)})
        elif role == "assistant":
            msgs.append({"role": "assistant", "content": [{"type": "text", "text": text}]})
        else:  # ("tool", name, args, result) inside history
            cc_tool(msgs, t, len(msgs), item[1], item[2], item[3], text=None)
    cur = cc_user_blocks(t, not hist, t["user"], day)
    cur[-1]["cache_control"] = EPHEMERAL
    msgs.append({"role": "user", "content": cur})
    for i, step in enumerate(loop):
        name, args, result = step[0], step[1], step[2]
        say = step[3] if len(step) > 3 else None
        cc_tool(msgs, t, 100 + i, name, args, result, say)
    if loop and t.get("todo_reminder"):
        msgs[-1]["content"].append({"type": "text", "text": TODO_REMINDER})
    return {"model": "claude-sonnet-4-5-20250929", "messages": msgs, "temperature": 1,
            "system": cc_system(t, day), "tools": cc_tools(t),
            "metadata": {"user_id": "user_" + hid(t.get("project", t.get("group")), n=40) +
                         "_account__session_" + hid(t["id"], n=8) + "-" + hid(t["id"], 1, n=4) + "-4" +
                         hid(t["id"], 2, n=3) + "-a" + hid(t["id"], 3, n=3) + "-" + hid(t["id"], 4, n=12)},
            "max_tokens": 32000, "stream": True}


def cc_tool(msgs, t, i, name, args, result, text):
    uid = "toolu_01" + hid(t["id"], i, n=22)
    content = ([{"type": "text", "text": text}] if text else []) + [
        {"type": "tool_use", "id": uid, "name": name, "input": args}]
    msgs.append({"role": "assistant", "content": content})
    msgs.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": uid,
                                              "content": cc_result(name, result)}]})


def cc_system(t, day):
    if t["agent"] == "nanoclaw":
        g = NANO_GROUPS[t.get("group", "family")]
        env = cc_env({"dir": "/workspace/group", "branch": "main", "status": "(not a git repository)",
                      "commits": "(none)"}, day)
        return [{"type": "text", "text": SDK_IDENTITY, "cache_control": EPHEMERAL},
                {"type": "text", "text": CC_INSTRUCTIONS + env + "\n\n" + NANO_GLOBAL + g.get("extra", ""),
                 "cache_control": EPHEMERAL}]
    sys = [{"type": "text", "text": CC_IDENTITY, "cache_control": EPHEMERAL},
           {"type": "text", "text": CC_INSTRUCTIONS + cc_env(CC_PROJECTS[t["project"]], day), "cache_control": EPHEMERAL}]
    if t.get("billing", True):
        sys.insert(0, {"type": "text", "text": "x-anthropic-billing-header: cc_version=2.1.45.760; cc_entrypoint=cli;"})
    return sys


def cc_tools(t):
    tools = [{"name": n, "description": d, "input_schema": {"type": "object", "properties": p, "required": r}}
             for n, d, p, r in CC_TOOLS]
    if t["agent"] == "nanoclaw":
        tools += [{"name": n, "description": d, "input_schema": {"type": "object", "properties": p, "required": r}}
                  for n, d, p, r in NANO_TOOLS]
    return tools


# ---------------------------------------------------------------- NanoClaw

NANO_TOOLS = [
    ("mcp__nanoclaw__send_message", "Send a message to the current chat right away (for progress or long tasks).",
     {"text": {"type": "string"}}, ["text"]),
    ("mcp__nanoclaw__schedule_task", "Schedule a prompt to run later: cron expression, interval or one-off time.",
     {"prompt": {"type": "string"}, "schedule_type": {"type": "string", "enum": ["cron", "interval", "once"]},
      "schedule_value": {"type": "string"}}, ["prompt", "schedule_type", "schedule_value"]),
    ("mcp__nanoclaw__list_tasks", "List scheduled tasks for this group.", {}, []),
]

NANO_GLOBAL = """# Andy

You are Andy, a personal assistant reachable over WhatsApp. You help with tasks, answer questions and can schedule reminders.

## Messages
Incoming chat messages arrive as <messages><message sender=... time=...>...</message></messages>. Only the messages that mention @Andy are addressed to you; earlier ones are context.
WhatsApp shows plain text: no Markdown headings or tables. Keep answers short. Wrap private reasoning in <internal> tags; it is not sent.

## Memory
The group folder /workspace/group holds CLAUDE.md (what you know about this group) and any files you create. Update CLAUDE.md when you learn something lasting.
"""

NANO_GROUPS = {
    "family": {"tz": "Europe/London",
               "claude_md": "# Family (WhatsApp group)\n\nMembers: Priya (mum), Dev (dad), Anika (14), Rohan (10).\n- Home: Leeds. Bins go out Sunday night (blue week / green week alternate).\n- Anika: swimming Tue/Thu 6pm. Rohan: allergic to peanuts.\n- Grandparents in Chennai (IST) and Dev's brother in Toronto.\n- Shopping: big Tesco order on Saturdays.\n"},
    "flat": {"tz": "Europe/Lisbon",
             "claude_md": "# Flat Rua dos Anjos (WhatsApp group)\n\nFlatmates: Tomás, Jess, Mehdi, Clara.\n- Rent 1,850 EUR split equally, paid to the landlord Sr. Duarte on the 1st.\n- Utilities split by days present.\n- Cleaning rota in chores.md.\n"},
    "design": {"tz": "Europe/Amsterdam",
               "claude_md": "# Studio Noord - design team\n\nMembers: Femke (lead), Joris, Aylin, Bram.\n- Client projects: Havenbank app redesign (due 28 March), museum wayfinding.\n- Tools: Figma, Linear. Standup 9:30.\n",
               "extra": "\nIn this group you may create Linear-style task lists but never email clients.\n"},
    "kids": {"tz": "Europe/Warsaw",
             "claude_md": "# Kasia & Marek - family admin\n\n- Kids: Zosia (8), Antek (5). School: SP nr 12, Kraków.\n- Babcia Halina reads Polish only.\n- Budget notes in budget.md.\n"},
}


def nano_messages(t, at):
    g = NANO_GROUPS[t.get("group", "family")]
    lines = []
    chat = t.get("chat", []) + [(t["sender"], t["user"])]
    for i, (sender, text) in enumerate(chat):
        stamp = (at - dt.timedelta(minutes=3 * (len(chat) - 1 - i))).strftime("%-d %b %Y, %H:%M")
        text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
        lines.append(f'<message sender="{sender}" time="{stamp}">{text}</message>')
    body = f'<context timezone="{g["tz"]}" />\n<messages>\n' + "\n".join(lines) + "\n</messages>"
    if t.get("scheduled"):
        body = ("[SCHEDULED TASK - The following message was sent automatically and is not coming directly "
                "from the user or group.]\n\n" + t["user"])
    return body


def nanoclaw(t):
    at = when(t.get("day", "2026-03-07"), t.get("minute", 18 * 60 + 30))
    u = dict(t)
    u["user"] = nano_messages(t, at)
    u["day"] = at.strftime("%Y-%m-%d")
    u["skills_reminder"] = False
    return claude_code(u)

# ---------------------------------------------------------------- Hermes

HERMES_TOOLS = [
    ("terminal", "Run a shell command in the configured terminal backend.",
     {"command": {"type": "string"}, "background": {"type": "boolean"}, "timeout": {"type": "integer"}}, ["command"]),
    ("read_file", "Read a text file with line numbers.", {"path": {"type": "string"}, "offset": {"type": "integer"},
                                                          "limit": {"type": "integer"}}, ["path"]),
    ("write_file", "Write a file, creating folders as needed.", {"path": {"type": "string"},
                                                                 "content": {"type": "string"}}, ["path", "content"]),
    ("patch", "Find and replace text in a file (fuzzy matching).",
     {"path": {"type": "string"}, "old_string": {"type": "string"}, "new_string": {"type": "string"}},
     ["path", "old_string", "new_string"]),
    ("search_files", "Search file names or contents.", {"pattern": {"type": "string"}, "path": {"type": "string"},
                                                        "target": {"type": "string", "enum": ["content", "files"]}},
     ["pattern"]),
    ("web_search", "Search the web and return titles, URLs and snippets.", {"query": {"type": "string"}}, ["query"]),
    ("web_extract", "Extract the readable content of web pages.",
     {"urls": {"type": "array", "items": {"type": "string"}}}, ["urls"]),
    ("skill_view", "Load a skill's instructions by name.", {"name": {"type": "string"}}, ["name"]),
    ("memory", "Add, replace or remove an entry of persistent memory.",
     {"action": {"type": "string", "enum": ["add", "replace", "remove"]}, "target": {"type": "string"},
      "content": {"type": "string"}, "old_text": {"type": "string"}}, ["action", "target"]),
    ("session_search", "Search past conversation transcripts.", {"query": {"type": "string"}}, ["query"]),
    ("todo", "Keep a task list for the current session.", {"todos": {"type": "array", "items": {"type": "object"}}},
     []),
    ("cronjob", "Create, list or remove scheduled jobs that run a prompt and deliver the result.",
     {"action": {"type": "string"}, "schedule": {"type": "string"}, "prompt": {"type": "string"},
      "deliver": {"type": "string"}}, ["action"]),
    ("clarify", "Ask the user a question with optional choices.", {"question": {"type": "string"},
                                                                   "choices": {"type": "array"}}, ["question"]),
]

HERMES_USERS = {
    "noor": {"platform": "telegram", "tz": "Asia/Dubai",
             "memory": ["Home server is a Hetzner CX22 (Debian 12) running Caddy, Nextcloud and a Pi-hole VM",
                        "User's notes live in ~/notes as Markdown, one folder per ISO week",
                        "Prefers metric units and 24h time"],
             "user": ["Name: Noor Haddad, lives in Dubai, works as a data engineer (Airflow, BigQuery)",
                      "Learning Rust; likes concise answers with the command first",
                      "Partner: Sami. Flies to Amman to see family most Eids"]},
    "leo": {"platform": "cli", "tz": "Europe/Madrid",
            "memory": ["Project ~/code/ledger is a Python 3.12 Flask app with pytest",
                       "Machine: Fedora 41 laptop, podman instead of docker",
                       "User's blog deploys with `make deploy` to a Netlify site"],
            "context": "# Project Context\n\nThe following project context files have been loaded and should be followed:\n\n## AGENTS.md\n\n- Python 3.12, Flask, SQLAlchemy; tests with `python -m pytest -q`.\n- Money is Decimal, rounded half-up to cents at the end of each calculation.\n- Commit messages in English, imperative mood.\n- Never run migrations against the production database from a laptop.\n",
            "user": ["Name: Leo Martín, Valencia, freelance full-stack developer",
                     "Writes in Spanish or English, answer in the same language",
                     "Has a gym contract with FitPlus; tracking costs to save for a flat deposit"]},
}

HERMES_PLATFORM = {
    "telegram": "You are on Telegram. Standard Markdown is converted for Telegram; avoid tables and prefer bullet lists.",
    "cli": "You are a CLI agent. Prefer plain text that renders in a terminal; give absolute paths for files you create.",
    "cron": "You are running as a scheduled job. Nobody is present to answer questions; finish the task on your own and deliver the result.",
}

HERMES_SKILLS = """<available_skills>
  github:
    - github-pr-workflow: Open, review and merge pull requests with gh.
    - github-issues: Triage and label issues.
  research:
    - arxiv: Search arXiv and fetch paper abstracts and PDFs.
    - web-research: Multi-source web research with citations.
  software-development:
    - systematic-debugging: Reproduce, isolate and fix bugs step by step.
    - plan: Write an implementation plan before coding.
  productivity:
    - google-workspace: Gmail, Calendar and Drive through the gws CLI.
    - notion: Read and write Notion pages.
  media:
    - youtube-content: Fetch transcripts and summarise videos.
</available_skills>"""


def hermes_block(title, entries, limit):
    text = "\n§\n".join(entries)
    pct = int(100 * len(text) / limit)
    bar = "\u2550" * 46
    return f"{bar}\n{title} [{pct}% \u2014 {len(text):,}/{limit:,} chars]\n{bar}\n{text}"


def hermes_system(t, at):
    u = HERMES_USERS[t.get("persona", "noor")]
    platform = "cron" if t.get("cron") else u["platform"]
    return "\n\n".join(part for part in [
        "You are Hermes Agent, an AI assistant made by Nous Research. You are helpful, knowledgeable and direct: you "
        "answer questions, write and edit code, analyse information and take actions through your tools. Say when you "
        "are unsure, and prefer being useful to being verbose.",
        "You have persistent memory across sessions. Save durable facts (preferences, environment details, conventions) "
        "with the memory tool; keep it compact. Do not store task progress; use session_search to recall past "
        "conversations.",
        "When the user refers to an earlier conversation, search it with session_search before asking them to repeat it.",
        hermes_block("MEMORY (your personal notes)", u["memory"], 2200),
        hermes_block("USER PROFILE (who the user is)", u["user"], 1375),
        "## Skills (mandatory)\nBefore replying, scan the skills below. If one matches your task, load it with "
        "skill_view(name) and follow it. Only go ahead without a skill if none is relevant.\n\n" + HERMES_SKILLS,
        u.get("context", ""),
        at.strftime("Conversation started: %A, %B %d, %Y %I:%M %p") + f"\nSession ID: {at.strftime('%Y%m%d_%H%M%S')}_"
        + hid(t["id"], n=6) + f"\nModel: {t.get('model', 'anthropic/claude-sonnet-4.5')}\nProvider: openrouter",
        HERMES_PLATFORM[platform],
    ] if part)


def hermes(t):
    at = when(t.get("day", "2026-03-12"), t.get("minute", 7 * 60 + 40))
    msgs = [{"role": "system", "content": hermes_system(t, at)}]
    for role, text in t.get("history", []):
        msgs.append({"role": role, "content": text})
    msgs.append({"role": "user", "content": t["user"]})
    for i, step in enumerate(t.get("loop", [])):
        name, args, result = step[0], step[1], step[2]
        cid = "call_" + hid(t["id"], i, n=24)
        msgs.append({"role": "assistant", "content": step[3] if len(step) > 3 else "", "tool_calls": [
            {"id": cid, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}]})
        code = step[4] if len(step) > 4 else 0
        msgs.append({"role": "tool", "tool_call_id": cid, "content": json.dumps({"output": result, "exit_code": code})
                     if name == "terminal" else result})
    tools = [{"type": "function", "function": {"name": n, "description": d, "parameters": {
        "type": "object", "properties": p, "required": r}}} for n, d, p, r in HERMES_TOOLS]
    return {"model": t.get("model", "anthropic/claude-sonnet-4.5"), "messages": msgs, "tools": tools}


# ---------------------------------------------------------------- plain SDK scripts

PLAIN_OPENAI = [
    {"model": "gpt-4.1-mini", "system": "You are a helpful assistant.", "extra": {"temperature": 0.3}},
    {"model": "gpt-5", "developer": "You are a careful senior engineer. Answer precisely.", "extra": {}},
    {"model": "gpt-4o", "system": None, "extra": {"stream": True}},
    {"model": "gpt-4.1", "system": "You are Pip, the assistant in our team's Slack. Be friendly and brief.",
     "extra": {"max_tokens": 1200}},
]

PLAIN_ANTHROPIC = [
    {"model": "claude-haiku-4-5", "system": "You are a helpful assistant.", "max_tokens": 1024},
    {"model": "claude-sonnet-4-5", "system": None, "max_tokens": 4096},
    {"model": "claude-opus-4-1", "system": [{"type": "text", "text": "You help a small team with writing and research."}],
     "max_tokens": 2048},
]


def plain(t):
    k = int(hid(t["id"], n=4), 16)
    hist = t.get("history", [])
    if t["api"] == "openai":
        s = PLAIN_OPENAI[k % len(PLAIN_OPENAI)]
        msgs = []
        if s.get("system"):
            msgs.append({"role": "system", "content": s["system"]})
        if s.get("developer"):
            msgs.append({"role": "developer", "content": s["developer"]})
        msgs += [{"role": r, "content": x} for r, x in hist]
        msgs.append({"role": "user", "content": t["user"]})
        return {"model": s["model"], "messages": msgs, **s["extra"]}
    s = PLAIN_ANTHROPIC[k % len(PLAIN_ANTHROPIC)]
    body = {"model": s["model"], "max_tokens": s["max_tokens"]}
    if s["system"]:
        body["system"] = s["system"]
    body["messages"] = [{"role": r, "content": x} for r, x in hist] + [{"role": "user", "content": t["user"]}]
    return body


WRAP = {"openclaw": openclaw, "claude-code": claude_code, "nanoclaw": nanoclaw, "hermes": hermes, "plain": plain}


def noisy(t):
    """Wrapped turns: agent envelopes and reminders always; Hermes and plain
    scripts when there is a tool loop, an earlier different ask, or pasted
    logs/traces/code (marked by the turn itself)."""
    if t["agent"] in ("openclaw", "claude-code", "nanoclaw"):
        return True
    return bool(t.get("loop") or t.get("history") or t.get("pasted") or t.get("cron"))
