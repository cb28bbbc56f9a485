package policy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/metaclaw/metaclaw/app/learner/policy/tokenizer"
	"github.com/metaclaw/metaclaw/app/learner/tinker"
)

// hubFiles are fetched in this order and written to the cache in the same
// order, the tokenizer last: the cache of a repo is complete when its
// tokenizer file exists. Newer repos keep the chat template in
// chat_template.jinja, which then takes precedence; older ones have none.
// The tokenizer is tokenizer.json or, for Moonshot's Kimi models, which
// ship none, tiktoken.model (their tokenization_kimi.py reads it with
// tokenizer_config.json).
var hubFiles = []struct {
	names    []string // the first of these the repo has
	optional bool
}{
	{[]string{"chat_template.jinja"}, true},
	{[]string{"tokenizer_config.json"}, false},
	{tokenizerFiles, false},
}

// tokenizerFiles are the tokenizer files a repo may have, in order of
// preference.
var tokenizerFiles = []string{"tokenizer.json", tokenizer.TiktokenFile}

// maxHubFile bounds one downloaded file (Qwen3's tokenizer.json is 11 MB,
// Kimi's tiktoken.model 2.8 MB).
const maxHubFile = 128 << 20

// llama3Tokenizer is the repo Tinker uses for every Llama 3 model, whose
// own repos are gated.
const llama3Tokenizer = "thinkingmachineslabinc/meta-llama-3-instruct-tokenizer"

// repoPattern is a Hugging Face repo id: "name" or "org/name".
var repoPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9][A-Za-z0-9._-]*)?$`)

// TokenizerRepo is the Hugging Face repo of the tokenizer of a Tinker base
// model, by the SDK's rules: the name cut at ':', org/model/variant cut to
// org/model, and every meta-llama/Llama-3* model mapped to Thinking
// Machines' copy of the Llama 3 instruct tokenizer.
func TokenizerRepo(model string) string {
	name := tinker.TokenizerIDFor(strings.TrimSpace(model))
	if strings.HasPrefix(name, "meta-llama/Llama-3") {
		return llama3Tokenizer
	}
	return name
}

// modelIDOf returns the model id in a checkpoint path
// tinker://<model_id>/sampler_weights/<name>, or "".
func modelIDOf(path string) string {
	rest, ok := strings.CutPrefix(path, "tinker://")
	if !ok {
		return ""
	}
	id, _, _ := strings.Cut(rest, "/")
	return id
}

// tokenizerRepo picks the tokenizer repo: rl.tokenizer when set, else what
// get_info reports for the model of the serving checkpoint, else
// TokenizerRepo(rl.model).
func (s *Server) tokenizerRepo(ctx context.Context) string {
	if t := strings.TrimSpace(s.opts.RL.Tokenizer); t != "" {
		return t
	}
	if id := modelIDOf(s.wanted()); id != "" {
		info, err := s.client.GetInfo(ctx, id)
		if err == nil && info.TokenizerID != "" {
			return TokenizerRepo(info.TokenizerID)
		}
		s.log.Warn("policy: get_info failed; deriving the tokenizer from rl.model", "model_id", id, "err", err)
	}
	return TokenizerRepo(s.opts.RL.Model)
}

// tokenizerDir is where tokenizers are cached.
func tokenizerDir(dataDir string) string { return filepath.Join(dataDir, "tokenizers") }

// hub fetches tokenizer files from the Hugging Face Hub into a cache.
type hub struct {
	endpoint string // without a trailing slash
	token    string
	dir      string // the cache: dir/<org>/<name>/<file>
	http     *http.Client
}

// repoDir returns the cache directory of repo, refusing names that are not
// repo ids (and so could escape the cache).
func (h hub) repoDir(repo string) (string, error) {
	if !repoPattern.MatchString(repo) || strings.Contains(repo, "..") {
		return "", fmt.Errorf("tokenizer repo %q is not a Hugging Face repo id", repo)
	}
	return filepath.Join(h.dir, filepath.FromSlash(repo)), nil
}

// ensure returns the cache directory of repo, fetching its files first
// when the cache does not have them.
func (h hub) ensure(ctx context.Context, repo string) (string, error) {
	dir, err := h.repoDir(repo)
	if err != nil {
		return "", err
	}
	if cached(dir) {
		return dir, nil
	}
	type file struct {
		name string
		data []byte
	}
	var files []file
	for _, f := range hubFiles {
		name, data, err := h.getFirst(ctx, repo, f.names)
		if errors.Is(err, errNotOnHub) && f.optional {
			continue
		}
		if err != nil {
			return "", err
		}
		files = append(files, file{name, data})
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("cache tokenizer: %w", err)
	}
	for _, f := range files {
		if err := writeAtomic(filepath.Join(dir, f.name), f.data); err != nil {
			return "", fmt.Errorf("cache tokenizer: %w", err)
		}
	}
	return dir, nil
}

// cached reports whether dir holds a complete cache: a tokenizer file,
// which is written last.
func cached(dir string) bool {
	for _, name := range tokenizerFiles {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return true
		}
	}
	return false
}

// getFirst downloads the first of names that the repo has.
func (h hub) getFirst(ctx context.Context, repo string, names []string) (string, []byte, error) {
	var err error
	for _, name := range names {
		var data []byte
		if data, err = h.get(ctx, repo, name); err == nil {
			return name, data, nil
		}
		if !errors.Is(err, errNotOnHub) {
			return "", nil, err
		}
	}
	if len(names) > 1 {
		err = fmt.Errorf("%s has none of %s: %w", repo, strings.Join(names, ", "), errNotOnHub)
	}
	return "", nil, err
}

// errNotOnHub marks a file the repo does not have (404).
var errNotOnHub = errors.New("not on the hub")

// get downloads one file of repo at revision main.
func (h hub) get(ctx context.Context, repo, name string) ([]byte, error) {
	url := h.endpoint + "/" + repo + "/resolve/main/" + name
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", url, err)
	}
	if h.token != "" {
		req.Header.Set("Authorization", "Bearer "+h.token)
	}
	resp, err := h.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", url, err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return nil, fmt.Errorf("fetch %s: %w", url, errNotOnHub)
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return nil, fmt.Errorf("fetch %s: http %d (a gated repo? set rl.tokenizer to a public copy)", url, resp.StatusCode)
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("fetch %s: http %d", url, resp.StatusCode)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxHubFile+1))
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", url, err)
	}
	if len(data) > maxHubFile {
		return nil, fmt.Errorf("fetch %s: larger than %d bytes", url, maxHubFile)
	}
	return data, nil
}

// writeAtomic writes data to path through a temporary file in the same
// directory, so a reader sees the old file or the whole new one.
func writeAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// load returns the runtime of repo for model, fetching the files first
// when they are not cached.
func (h hub) load(ctx context.Context, repo, model string) (*runtime, error) {
	dir, err := h.ensure(ctx, repo)
	if err != nil {
		return nil, err
	}
	return loadRuntime(dir, model)
}
