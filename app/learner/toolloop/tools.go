package toolloop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"

	"github.com/openai/openai-go/v3"
)

// maxRead bounds what the read tool returns of a file.
const maxRead = 64 << 10

// Tools are the built-in agent's tools — read, write, list, exec — over
// one workspace. The file tools go through an os.Root, so no path (".."
// or a symbolic link included) reaches outside the workspace; exec runs
// the command in the workspace with the shell's time limit and, when the
// shell is isolated, without network.
type Tools struct {
	root *os.Root
	dir  string
	sh   Shell
}

// OpenTools opens the tools over a workspace folder.
func OpenTools(dir string, sh Shell) (*Tools, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("open workspace: %w", err)
	}
	return &Tools{root: root, dir: dir, sh: sh}, nil
}

// Close releases the workspace.
func (t *Tools) Close() error { return t.root.Close() }

// Definitions returns the tools as OpenAI function tools.
func (t *Tools) Definitions() []openai.ChatCompletionToolUnionParam {
	str := map[string]any{"type": "string"}
	num := map[string]any{"type": "integer"}
	def := func(name, desc string, props map[string]any, required ...string) openai.ChatCompletionToolUnionParam {
		return openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{Name: name, Description: openai.String(desc),
			Parameters: openai.FunctionParameters{"type": "object", "properties": props, "required": required}})
	}
	return []openai.ChatCompletionToolUnionParam{
		def("read", "Read a text file of the workspace. offset is the first line (1-based), limit the number of lines.",
			map[string]any{"path": str, "offset": num, "limit": num}, "path"),
		def("write", "Write (create or overwrite) a file of the workspace; parent folders are created.",
			map[string]any{"path": str, "content": str}, "path", "content"),
		def("list", "List a folder of the workspace (default: its root); folders end with /.",
			map[string]any{"path": str}),
		def("exec", "Run a shell command in the workspace root and return its exit code and output. No network.",
			map[string]any{"command": str}, "command"),
	}
}

// toolArgs are the arguments of every tool.
type toolArgs struct {
	Path    string `json:"path"`
	Content string `json:"content"`
	Offset  int    `json:"offset"`
	Limit   int    `json:"limit"`
	Command string `json:"command"`
}

// Call runs one tool call and returns what the model sees; a failure is
// reported in the text, as tools report errors to a model.
func (t *Tools) Call(ctx context.Context, name, arguments string) string {
	var a toolArgs
	if strings.TrimSpace(arguments) != "" {
		if err := json.Unmarshal([]byte(arguments), &a); err != nil {
			return "error: the arguments are not a JSON object: " + err.Error()
		}
	}
	var out string
	var err error
	switch name {
	case "read":
		out, err = t.read(a)
	case "write":
		out, err = t.write(a)
	case "list":
		out, err = t.list(a)
	case "exec":
		if a.Command == "" {
			return "error: command is empty"
		}
		r := t.sh.Run(ctx, t.dir, a.Command)
		out = fmt.Sprintf("exit code %d\n%s", r.ExitCode, r.Output)
	default:
		err = fmt.Errorf("unknown tool %q (the tools are read, write, list and exec)", name)
	}
	if err != nil {
		return "error: " + err.Error()
	}
	return out
}

// clean turns a tool path into a path relative to the workspace root
// ("/x" and "./x" both name x); os.Root refuses what still escapes.
func clean(p string) string {
	p = path.Clean("/" + strings.ReplaceAll(p, `\`, "/"))
	if p == "/" {
		return "."
	}
	return strings.TrimPrefix(p, "/")
}

func (t *Tools) read(a toolArgs) (string, error) {
	if a.Path == "" {
		return "", errors.New("path is empty")
	}
	data, err := t.root.ReadFile(clean(a.Path))
	if err != nil {
		return "", err
	}
	text := string(data)
	if a.Offset > 1 || a.Limit > 0 {
		lines := strings.SplitAfter(text, "\n")
		from := min(max(a.Offset, 1)-1, len(lines))
		to := len(lines)
		if a.Limit > 0 {
			to = min(from+a.Limit, len(lines))
		}
		text = strings.Join(lines[from:to], "")
	}
	if len(text) > maxRead {
		text = text[:maxRead] + fmt.Sprintf("\n[truncated: %d more bytes; read with offset and limit]", len(text)-maxRead)
	}
	return text, nil
}

func (t *Tools) write(a toolArgs) (string, error) {
	p := clean(a.Path)
	if p == "." {
		return "", errors.New("path is empty")
	}
	if dir := path.Dir(p); dir != "." {
		if err := t.root.MkdirAll(dir, 0o700); err != nil {
			return "", err
		}
	}
	if err := t.root.WriteFile(p, []byte(a.Content), 0o600); err != nil {
		return "", err
	}
	return fmt.Sprintf("wrote %d bytes to %s", len(a.Content), p), nil
}

func (t *Tools) list(a toolArgs) (string, error) {
	entries, err := fs.ReadDir(t.root.FS(), clean(a.Path))
	if err != nil {
		return "", err
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() {
			n += "/"
		}
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) == 0 {
		return "(empty)", nil
	}
	return strings.Join(names, "\n"), nil
}
