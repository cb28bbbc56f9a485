package calendar

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"

	"golang.org/x/oauth2"
)

// tokenMode is the only mode a token file may have.
const tokenMode fs.FileMode = 0o600

// LoadToken reads the token file at path. A file readable by others is
// first narrowed to 0600. A missing file yields ErrNotConnected.
func LoadToken(path string) (*oauth2.Token, error) {
	raw, err := readTokenFile(path)
	if err != nil {
		return nil, err
	}
	return parseToken(path, raw)
}

func readTokenFile(path string) ([]byte, error) {
	if err := narrowMode(path); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNotConnected
	}
	if err != nil {
		return nil, fmt.Errorf("read calendar token: %w", err)
	}
	return b, nil
}

func parseToken(path string, raw []byte) (*oauth2.Token, error) {
	var tok oauth2.Token
	if err := json.Unmarshal(raw, &tok); err != nil {
		return nil, fmt.Errorf("%w: token file %s is not a token: %w", ErrReconnectNeeded, path, err)
	}
	if tok.AccessToken == "" && tok.RefreshToken == "" {
		return nil, fmt.Errorf("%w: token file %s holds no token", ErrReconnectNeeded, path)
	}
	return &tok, nil
}

// narrowMode makes an existing file at path mode 0600. Windows has no
// such modes; its ACLs are left alone.
func narrowMode(path string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("stat calendar token: %w", err)
	}
	if fi.Mode().Perm() == tokenMode {
		return nil
	}
	if err := os.Chmod(path, tokenMode); err != nil {
		return fmt.Errorf("restrict calendar token to 0600: %w", err)
	}
	return nil
}

// SaveToken writes tok to path atomically: a 0600 temporary file in the
// same directory, synced, then renamed over the old one. The directory is
// created 0700 if missing.
func SaveToken(path string, tok *oauth2.Token) error {
	b, err := json.Marshal(tok)
	if err != nil {
		return fmt.Errorf("encode calendar token: %w", err)
	}
	return writeTokenFile(path, b)
}

func writeTokenFile(path string, b []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create calendar token directory: %w", err)
	}
	f, err := os.CreateTemp(dir, ".calendar-token-*.tmp")
	if err != nil {
		return fmt.Errorf("create calendar token file: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp) // no-op after a successful rename
	if err := writeSynced(f, b); err != nil {
		return fmt.Errorf("write calendar token: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("replace calendar token: %w", err)
	}
	return narrowMode(path)
}

func writeSynced(f *os.File, b []byte) error {
	err := f.Chmod(tokenMode)
	if runtime.GOOS == "windows" {
		err = nil
	}
	if err == nil {
		_, err = f.Write(b)
	}
	if err == nil {
		err = f.Sync()
	}
	return errors.Join(err, f.Close())
}

// DeleteToken removes the token file; a missing file is not an error.
func DeleteToken(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("delete calendar token: %w", err)
	}
	return nil
}
