package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// openclawRecord is what the bench keeps beside OpenClaw's state folder:
// how many of the day's messages that state has seen. The snapshot folder
// holds the state as it was before the message in flight, with its own
// record.
type openclawRecord struct {
	Sent int `json:"sent"`
}

func (a *openclawAgent) recordPath() string {
	return filepath.Join(a.spec.StateDir, "openclaw-record.json")
}

func (a *openclawAgent) snapshotDir() string {
	return filepath.Join(a.spec.StateDir, "openclaw-snapshot")
}

func (a *openclawAgent) saveRecord() error {
	return writeJSON(a.recordPath(), openclawRecord{Sent: a.sent})
}

// restore prepares the state folder on a fresh day, or on a resumed one
// goes back to the state after spec.Done messages: the snapshot taken
// before the message that was in flight, or the state itself when no
// message was.
func (a *openclawAgent) restore() error {
	var rec openclawRecord
	err := readRecord(a.recordPath(), &rec)
	switch {
	case errors.Is(err, os.ErrNotExist) && a.spec.Done == 0:
		return a.fresh()
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("%w: the state folder %s is gone", errOpenClawState, a.state)
	case err != nil:
		return err
	}
	var snap openclawRecord
	if readRecord(filepath.Join(a.snapshotDir(), "record.json"), &snap) == nil && snap.Sent == a.spec.Done {
		if err := os.RemoveAll(a.state); err != nil {
			return err
		}
		if err := copyTree(filepath.Join(a.snapshotDir(), "state"), a.state); err != nil {
			return fmt.Errorf("resume OpenClaw's day: %w", err)
		}
		a.sent = snap.Sent
		return a.saveRecord()
	}
	if rec.Sent != a.spec.Done {
		return fmt.Errorf("%w: OpenClaw saw %d messages, the run %d", errOpenClawState, rec.Sent, a.spec.Done)
	}
	a.sent = rec.Sent
	return nil
}

func readRecord(path string, rec *openclawRecord) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, rec)
}

// fresh writes a fresh state folder: the configuration and, when the day
// has one, its session seed.
func (a *openclawAgent) fresh() error {
	if err := os.RemoveAll(a.state); err != nil {
		return err
	}
	if err := os.MkdirAll(a.state, 0o700); err != nil {
		return err
	}
	if err := a.writeConfig(false, false); err != nil {
		return err
	}
	if a.spec.SeedFile != "" {
		if err := a.importSeed(); err != nil {
			return err
		}
	}
	a.sent = 0
	return a.saveRecord()
}

// importSeed makes the day's seed transcript the start of the session:
// it writes it as a legacy session (sessions.json and the transcript,
// its header's id set to the session's) and has `openclaw doctor
// --session-sqlite import` take it into OpenClaw's database.
func (a *openclawAgent) importSeed() error {
	seed, err := os.ReadFile(a.spec.SeedFile)
	if err != nil {
		return fmt.Errorf("OpenClaw session seed: %w", err)
	}
	seed, err = withSessionID(seed, a.spec.SessionID)
	if err != nil {
		return fmt.Errorf("OpenClaw session seed %s: %w", a.spec.SeedFile, err)
	}
	dir := filepath.Join(a.state, "agents", a.spec.AgentID, "sessions")
	file := a.spec.SessionID + ".jsonl"
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, file), seed, 0o600); err != nil {
		return err
	}
	store := map[string]any{"agent:" + a.spec.AgentID + ":" + a.key: map[string]any{
		"sessionId": a.spec.SessionID, "sessionFile": file, "updatedAt": time.Now().UnixMilli()}}
	if err := writeJSON(filepath.Join(dir, "sessions.json"), store); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), openclawCLITimeout)
	defer cancel()
	stdout, stderr, err := a.run(ctx, "doctor", "--session-sqlite", "import", "--session-sqlite-agent", a.spec.AgentID, "--json")
	if err != nil {
		return fmt.Errorf("import the session seed into OpenClaw: %v: %s", err, tail(string(stderr), 500))
	}
	return checkImport(stdout)
}

// checkImport reads the doctor's JSON report: the seed's events must have
// been imported, without issues.
func checkImport(out []byte) error {
	var rep struct {
		Totals struct {
			ImportedTranscriptEvents int `json:"importedTranscriptEvents"`
			Issues                   int `json:"issues"`
		} `json:"totals"`
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		return fmt.Errorf("import the session seed into OpenClaw: the report is not JSON: %s", tail(string(out), 300))
	}
	if rep.Totals.Issues > 0 || rep.Totals.ImportedTranscriptEvents == 0 {
		return fmt.Errorf("import the session seed into OpenClaw: %d events imported, %d issues: %s",
			rep.Totals.ImportedTranscriptEvents, rep.Totals.Issues, tail(string(out), 500))
	}
	return nil
}

// withSessionID sets the id of a transcript's session header (its first
// line, {"type": "session", …}).
func withSessionID(transcript []byte, id string) ([]byte, error) {
	first, rest, _ := bytes.Cut(transcript, []byte("\n"))
	var header map[string]any
	if err := json.Unmarshal(first, &header); err != nil || header["type"] != "session" {
		return nil, errors.New(`the first line is not a {"type": "session"} header`)
	}
	header["id"] = id
	line, err := json.Marshal(header)
	if err != nil {
		return nil, err
	}
	return append(append(line, '\n'), rest...), nil
}

// snapshot keeps a copy of the state folder as it is before a message,
// so that a run interrupted while OpenClaw worked on it resumes from a
// state that has not seen it. OpenClaw's lock files (tmp/) are left out.
func (a *openclawAgent) snapshot() error {
	dir := a.snapshotDir()
	tmp := dir + ".tmp"
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	entries, err := os.ReadDir(a.state)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(tmp, "state"), 0o700); err != nil {
		return err
	}
	for _, e := range entries {
		if e.Name() == "tmp" {
			continue
		}
		if err := copyTree(filepath.Join(a.state, e.Name()), filepath.Join(tmp, "state", e.Name())); err != nil {
			return fmt.Errorf("snapshot OpenClaw's state: %w", err)
		}
	}
	if err := writeJSON(filepath.Join(tmp, "record.json"), openclawRecord{Sent: a.sent}); err != nil {
		return err
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	return os.Rename(tmp, dir)
}
