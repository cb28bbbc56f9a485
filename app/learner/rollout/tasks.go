package rollout

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Task is one line of a task file: {"task_id", "instruction"}, the format
// of the reference's openclaw_env_rollout.py load_tasks.
type Task struct {
	ID          string `json:"task_id"`
	Instruction string `json:"instruction"`
}

// LoadTasks reads <dir>/<split>.jsonl, as the reference does, or every
// *.jsonl file of dir when that file does not exist. A line that is not a
// task is reported and skipped; a task id seen twice keeps its first line.
func LoadTasks(dir, split string) ([]Task, []string, error) {
	files := []string{filepath.Join(dir, split+".jsonl")}
	if _, err := os.Stat(files[0]); err != nil {
		all, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
		if err != nil {
			return nil, nil, err
		}
		sort.Strings(all)
		files = all
	}
	if len(files) == 0 {
		return nil, nil, fmt.Errorf("no task file in %s: write %s.jsonl with one {\"task_id\", \"instruction\"} per line", dir, split)
	}
	var tasks []Task
	var problems []string
	seen := map[string]bool{}
	for _, f := range files {
		ts, ps, err := readTaskFile(f)
		if err != nil {
			return nil, nil, err
		}
		problems = append(problems, ps...)
		for _, t := range ts {
			if !seen[t.ID] {
				seen[t.ID] = true
				tasks = append(tasks, t)
			}
		}
	}
	return tasks, problems, nil
}

func readTaskFile(path string) ([]Task, []string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("read tasks: %w", err)
	}
	defer f.Close()
	var tasks []Task
	var problems []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 4<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var t Task
		err := json.Unmarshal([]byte(line), &t)
		t.ID, t.Instruction = strings.TrimSpace(t.ID), strings.TrimSpace(t.Instruction)
		switch {
		case err != nil:
			problems = append(problems, fmt.Sprintf("%s:%d: not JSON: %v", filepath.Base(path), n, err))
		case t.ID == "" || t.Instruction == "":
			problems = append(problems, fmt.Sprintf("%s:%d: needs task_id and instruction", filepath.Base(path), n))
		default:
			tasks = append(tasks, t)
		}
	}
	return tasks, problems, sc.Err()
}
