package web

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"regexp"
	"sort"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/metaclaw/metaclaw/store/config"
)

// Log tail limits.
const (
	tailLines = 200
	tailBytes = 256 << 10
)

// logData is the log page.
type logData struct {
	Path    string
	Lines   []string
	Missing bool
}

func (s *Server) logs(c *fiber.Ctx) error {
	d := logData{Path: s.opts.Control.LogPath()}
	lines, err := tail(d.Path, tailLines, tailBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist) || d.Path == "":
		d.Missing = true
	case err != nil:
		return err
	}
	stored, _, err := config.Load(c.UserContext(), s.opts.DB)
	if err != nil {
		return err
	}
	d.Lines = redact(lines, secretValues(s.opts.Control.Config(), stored))
	return s.render(c, fiber.StatusOK, logsPage(s.page(c, "Log", "logs"), d))
}

// tail returns the last n lines of the file, reading at most max bytes
// from its end.
func tail(path string, n int, max int64) ([]string, error) {
	if path == "" {
		return nil, fs.ErrNotExist
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	off := max64(st.Size()-max, 0)
	buf := make([]byte, st.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if off > 0 { // drop the partial first line
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			buf = buf[i+1:]
		}
	}
	lines := strings.Split(strings.TrimRight(strings.ToValidUTF8(string(buf), "\uFFFD"), "\n"), "\n")
	if len(lines) == 1 && lines[0] == "" {
		return nil, nil
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return lines, nil
}

func max64(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}

// secretValues returns every configured secret (in force or stored) long
// enough to be recognised, longest first.
func secretValues(cfgs ...config.Config) []string {
	set := map[string]bool{}
	for _, c := range cfgs {
		for _, f := range config.Fields() {
			if v, _ := c.Get(f.Key); f.Secret && len(v) >= 4 {
				set[v] = true
			}
		}
	}
	out := make([]string, 0, len(set))
	for v := range set {
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

// credentialRE matches what looks like a credential even when it is not a
// configured one: bearer tokens, sk-… keys, and key=/token= values.
var credentialRE = regexp.MustCompile(`(?i)(bearer\s+|\bsk-|(?:api[_-]?key|token|secret|password)["']?\s*[=:]\s*["']?)[A-Za-z0-9._~+/-]{8,}`)

// redact masks secrets in log lines.
func redact(lines, secrets []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		for _, s := range secrets {
			l = strings.ReplaceAll(l, s, "********")
		}
		out[i] = credentialRE.ReplaceAllString(l, "${1}********")
	}
	return out
}
