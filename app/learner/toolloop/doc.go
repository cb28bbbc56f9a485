// Package toolloop is MetaClaw's built-in agent: a tool loop over the
// OpenAI chat completions API (streamed, as OpenClaw calls it) with four
// tools over one work folder — read, write, list and exec. The bench's
// built-in agent (app/bench) and programmatic rollout's loop for
// claw_type none (app/learner/rollout) both run it.
//
// Confinement. The file tools go through an os.Root, so no path (".." or
// a symbolic link included) reaches outside the work folder. exec runs
// `sh -c` (cmd /C on Windows) with the work folder as its current
// directory, a time limit per command after which the command and every
// process it started are killed, and its output cut at 16 KiB. A shell
// command can still name absolute paths: exec confines where commands
// start, not what the user's account may read.
//
// No network. With Shell.Isolated, a command gets no network at all: on
// Linux it runs in a network namespace of its own whose only interface is
// a loopback that is down, so it can reach nothing — not the internet,
// not DNS, not the proxy or any other service on this machine's
// 127.0.0.1 (as root directly; otherwise inside an unprivileged user
// namespace that maps the user's own id). On macOS it runs under
// sandbox-exec with a profile that denies every network operation.
// Elsewhere isolation is impossible, and ProbeIsolation says so: callers
// refuse to run isolated commands there rather than run them with the
// network. The model's own calls go from this process, not from the
// commands, so the loop itself still reaches its endpoint.
package toolloop
