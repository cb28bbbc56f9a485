package config

import (
	"os"
	"path/filepath"
	"strings"
)

// ExpandHome returns path with a leading "~/" replaced by the user's home
// directory, as paths in the settings may be written; other paths are
// returned unchanged.
func ExpandHome(path string) string {
	if rest, ok := strings.CutPrefix(path, "~"+string(filepath.Separator)); ok {
		if h, err := os.UserHomeDir(); err == nil {
			return filepath.Join(h, rest)
		}
	}
	return path
}
