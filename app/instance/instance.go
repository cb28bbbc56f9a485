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
	"runtime"
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
	home      string
	f         *os.File
	tightened os.FileMode // the data directory's mode before Acquire made it 0700; 0 if it was
}

// Acquire takes the data directory's exclusive lock without waiting,
// creating the directory 0700, or tightening it to 0700 when it exists with
// access for others (the database holds API keys). It returns ErrLocked
// when another process holds the lock. The lock is released by Release or,
// whatever happens, when the process exits.
func Acquire(home string) (*Lock, error) {
	was, err := secureDir(home)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(home, LockName), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock file: %w", err)
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, err
	}
	return &Lock{home: home, f: f, tightened: was}, nil
}

// Tightened reports the mode the data directory had when Acquire had to
// tighten it to 0700.
func (l *Lock) Tightened() (os.FileMode, bool) { return l.tightened, l.tightened != 0 }

// secureDir creates dir 0700, or makes an existing one 0700 when others
// may enter it, and returns the mode it had then (0 when unchanged). On
// Windows, where the permission bits do not describe access, it only
// creates the directory.
func secureDir(dir string) (os.FileMode, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return 0, fmt.Errorf("create data directory: %w", err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return 0, fmt.Errorf("data directory: %w", err)
	}
	mode := fi.Mode().Perm()
	if runtime.GOOS == "windows" || mode&0o077 == 0 {
		return 0, nil
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return 0, fmt.Errorf("make data directory private (0700, it is %#o): %w", mode, err)
	}
	return mode, nil
}

// Held reports whether some process holds the lock of home right now.
// It creates and changes nothing: without a lock file, nobody holds it.
func Held(home string) bool {
	f, err := os.OpenFile(filepath.Join(home, LockName), os.O_RDWR, 0)
	if err != nil {
		return false
	}
	defer f.Close() // closing releases the lock; the pid file is not ours to touch
	return errors.Is(lockFile(f), ErrLocked)
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
