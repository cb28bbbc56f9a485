package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
)

// writerMain is the child process of TestKillMidWrite: it writes turns and
// settings from four goroutines as fast as it can and prints one line per
// committed write, until it is killed.
func writerMain() int {
	db, err := store.Open(os.Getenv("METACLAW_TEST_WRITER"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	var mu sync.Mutex
	out := bufio.NewWriter(os.Stdout)
	report := func(line string) {
		mu.Lock()
		defer mu.Unlock()
		out.WriteString(line + "\n")
		out.Flush()
	}
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; ; i++ {
				session := fmt.Sprintf("w%d", w)
				text := strings.Repeat(fmt.Sprintf("turn %d of writer %d. ", i, w), 50)
				t := &store.Turn{SessionID: session, ResponseText: text, Request: []byte(`{"i":` + strconv.Itoa(i) + `}`)}
				if err := db.RecordTurns(context.Background(), []*store.Turn{t}); err != nil {
					fmt.Fprintln(os.Stderr, "write:", err)
					return
				}
				report(fmt.Sprintf("turn %d %s %d", t.ID, session, i))
				if i%10 == 0 {
					if _, err := config.Save(context.Background(), db, map[string]string{"skills.top_k": strconv.Itoa(i % 100)}); err != nil {
						fmt.Fprintln(os.Stderr, "config:", err)
						return
					}
					report(fmt.Sprintf("setting %d", i%100))
				}
			}
		}(w)
	}
	wg.Wait()
	return 1
}

func TestKillMidWrite(t *testing.T) {
	t.Parallel()
	in := newInstance(t)
	in.setup()
	dbPath := filepath.Join(in.home, "metaclaw.db")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), "METACLAW_TEST_WRITER="+dbPath)
	stdout, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	type committed struct {
		id      int64
		session string
		i       int
	}
	var turns []committed
	lastSetting := -1
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch f[0] {
		case "turn":
			id, _ := strconv.ParseInt(f[1], 10, 64)
			i, _ := strconv.Atoi(f[3])
			turns = append(turns, committed{id, f[2], i})
		case "setting":
			lastSetting, _ = strconv.Atoi(f[1])
		}
		if len(turns) == 400 {
			cmd.Process.Signal(syscall.SIGKILL) // mid-stream: the writers are still going
			break
		}
	}
	for sc.Scan() { // whatever was committed before the kill landed
		f := strings.Fields(sc.Text())
		if f[0] == "turn" {
			id, _ := strconv.ParseInt(f[1], 10, 64)
			i, _ := strconv.Atoi(f[3])
			turns = append(turns, committed{id, f[2], i})
		}
	}
	cmd.Wait()
	if len(turns) < 400 {
		t.Fatalf("writer stopped early after %d turns: %s", len(turns), stderr.String())
	}

	db, err := store.Open(dbPath)
	if err != nil {
		t.Fatalf("reopen after SIGKILL: %v", err)
	}
	ctx := context.Background()
	for _, c := range turns {
		got, err := db.TurnByID(ctx, c.id)
		if err != nil {
			t.Fatalf("committed turn %d lost: %v", c.id, err)
		}
		want := strings.Repeat(fmt.Sprintf("turn %d of writer %s. ", c.i, strings.TrimPrefix(c.session, "w")), 50)
		if got.SessionID != c.session || got.ResponseText != want {
			t.Fatalf("turn %d corrupted", c.id)
		}
	}
	var ok string
	if err := db.SQL().QueryRow("PRAGMA integrity_check").Scan(&ok); err != nil || ok != "ok" {
		t.Fatalf("integrity_check = %q, %v", ok, err)
	}
	cfg, _, err := config.Load(ctx, db)
	if err != nil || lastSetting < 0 {
		t.Fatalf("config after crash: %v (last setting %d)", err, lastSetting)
	}
	if got := cfg.Proxy.Port; got != in.port {
		t.Errorf("setup's port lost: %d", got)
	}
	db.Close()
	t.Logf("%d committed turns survived SIGKILL", len(turns))

	// The app starts on the crashed database.
	in.must("start", "--daemon")
	if s, _ := in.status(); s.State != "running" || !s.Responding {
		t.Fatalf("after crash recovery status = %+v", s)
	}
	in.must("stop")
}
