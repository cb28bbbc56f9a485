// Package instance keeps one MetaClaw per data directory: an exclusive lock
// on <home>/metaclaw.lock held for the life of the process, and a pid file
// describing the running instance (pid, addresses, mode) for `status` and
// `stop`. It also finds the data directory. It is used by app and its CLI.
package instance

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// File names inside the data directory.
const (
	LockName = "metaclaw.lock"
	PidName  = "metaclaw.pid"
	LogName  = "metaclaw.log"
	DBName   = "metaclaw.db"
)

// Home returns the data directory: $METACLAW_HOME, else ~/.metaclaw.
func Home() (string, error) {
	if h := os.Getenv("METACLAW_HOME"); h != "" {
		return filepath.Abs(h)
	}
	u, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find home directory (set METACLAW_HOME): %w", err)
	}
	return filepath.Join(u, ".metaclaw"), nil
}

// Info is what the pid file records about a running instance.
type Info struct {
	PID       int       `json:"pid"`
	StartedAt time.Time `json:"started_at"`
	Version   string    `json:"version"`
	Mode      string    `json:"mode"`
	ProxyURL  string    `json:"proxy_url"`
	WebURL    string    `json:"web_url,omitempty"`
	Home      string    `json:"home"`
	Exe       string    `json:"exe"`
}

// ErrLocked means another process holds the data directory's lock.
var ErrLocked = errors.New("another MetaClaw is running with this data directory")

// Lock is a held instance lock.
type Lock struct {
	home string
	f    *os.File
}

// Acquire takes the data directory's exclusive lock without waiting. It
// returns ErrLocked when another process holds it. The lock is released by
// Release or, whatever happens, when the process exits.
func Acquire(home string) (*Lock, error) {
	if err := os.MkdirAll(home, 0o700); err != nil {
		return nil, fmt.Errorf("create data directory: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(home, LockName), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock file: %w", err)
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, err
	}
	return &Lock{home: home, f: f}, nil
}

// Held reports whether some process holds the lock of home right now.
func Held(home string) bool {
	l, err := Acquire(home)
	if err != nil {
		return errors.Is(err, ErrLocked)
	}
	l.f.Close() // closing releases the lock; the pid file is not ours to touch
	return false
}

// WriteInfo writes the pid file atomically, mode 0600.
func (l *Lock) WriteInfo(info Info) error {
	data, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		return fmt.Errorf("encode pid file: %w", err)
	}
	tmp := filepath.Join(l.home, PidName+".tmp")
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return fmt.Errorf("write pid file: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(l.home, PidName)); err != nil {
		return fmt.Errorf("write pid file: %w", err)
	}
	return nil
}

// Release removes the pid file and releases the lock.
func (l *Lock) Release() error {
	_ = os.Remove(filepath.Join(l.home, PidName))
	return l.f.Close()
}

// ReadInfo reads the pid file of home. It returns an error wrapping
// os.ErrNotExist when there is none.
func ReadInfo(home string) (Info, error) {
	var info Info
	data, err := os.ReadFile(filepath.Join(home, PidName))
	if err != nil {
		return info, err
	}
	if err := json.Unmarshal(data, &info); err != nil {
		return info, fmt.Errorf("read pid file: %w", err)
	}
	return info, nil
}

// RemoveStale removes a pid file left behind by a process that no longer
// holds the lock. It does nothing while the lock is held.
func RemoveStale(home string) (bool, error) {
	if Held(home) {
		return false, nil
	}
	err := os.Remove(filepath.Join(home, PidName))
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}
