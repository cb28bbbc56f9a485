package app

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/metaclaw/metaclaw"

// testutilPkg holds the tests' shared helpers; no non-test code imports it.
const testutilPkg = "store/testutil"

// layerOf names the layer of a project package, per DESIGN.md:
// store, assets ← idle, proxy/* ← proxy, learner, web ← app ← app/cmd,
// with proxy/learning ("shared": the types the proxy and the learner
// share) beside the bottom layers. store/testutil is for tests only
// and imports nothing of the project.
func layerOf(pkg string) string {
	rel := strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/")
	switch {
	case rel == sharedPkg:
		return "shared"
	case rel == testutilPkg:
		return "testutil"
	case rel == "store" || strings.HasPrefix(rel, "store/"):
		return "store"
	case rel == "assets" || strings.HasPrefix(rel, "assets/"):
		return "assets"
	case rel == "idle" || strings.HasPrefix(rel, "idle/"):
		return "idle"
	case strings.HasPrefix(rel, "proxy/"):
		return "proxy/*"
	case rel == "proxy":
		return "proxy"
	case rel == "app/learner" || strings.HasPrefix(rel, "app/learner/"):
		return "learner"
	case rel == "web" || strings.HasPrefix(rel, "web/"):
		return "web"
	case strings.HasPrefix(rel, "app/cmd/"):
		return "cmd"
	}
	return "app" // app and the rest of app/... (cli, tray, instance)
}

// allowed lists, for each layer, the layers it may depend on (itself
// included where packages of a layer use each other).
var allowed = map[string][]string{
	"shared":   {}, // imports nothing of ours
	"testutil": {"testutil"},
	"store":    {"store"},
	"assets":   {"assets"},
	"idle":     {"idle", "store", "assets"},
	"proxy/*":  {"proxy/*", "store", "assets"},
	"proxy":    {"shared", "proxy/*", "store", "assets", "idle"},
	"learner":  {"shared", "learner", "proxy/*", "store", "assets", "idle"},
	"web":      {"web", "proxy/*", "store", "assets", "idle"},
	"app":      {"shared", "app", "learner", "web", "proxy", "proxy/*", "store", "assets", "idle"},
	"cmd":      {"shared", "app", "learner", "web", "proxy", "proxy/*", "store", "assets", "idle"},
}

// sharedPkg holds the event, message and injector types of the proxy and
// the learner; sharers must import it rather than keep copies.
const sharedPkg = "proxy/learning"

// sharers are the packages that exchange those types.
var sharers = []string{"proxy", "app/learner", "app/learner/skills", "app/learner/memory", "app/learner/memory/memapi"}

func TestImportRule(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}|{{join .Imports \" \"}}|{{join .Deps \" \"}}", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	seen, sharing := 0, 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		parts := strings.Split(line, "|")
		pkg, imports, deps := parts[0], strings.Fields(parts[1]), strings.Fields(parts[2])
		seen++
		if rel := strings.TrimPrefix(pkg, module+"/"); contains(sharers, rel) {
			sharing++
			if !contains(imports, module+"/"+sharedPkg) {
				t.Errorf("%s does not import %s: it must use the shared event, message and injector types", pkg, sharedPkg)
			}
		}
		layer := layerOf(pkg)
		if contains(imports, "fyne.io/systray") && pkg != module+"/app/tray" {
			t.Errorf("%s imports fyne.io/systray; only app/tray may", pkg)
		}
		for _, d := range deps {
			if !strings.HasPrefix(d, module) {
				continue
			}
			if !contains(allowed[layer], layerOf(d)) {
				t.Errorf("%s (%s) depends on %s (%s)", pkg, layer, d, layerOf(d))
			}
			if d == module+"/idle/windows" && !windowsMayImport(pkg) {
				t.Errorf("%s imports idle/windows: it sits above idle and idle/calendar, beside nothing else in idle", pkg)
			}
			if layerOf(d) == "testutil" {
				t.Errorf("%s depends on %s outside its tests", pkg, d)
			}
			if d == module+"/app/bench" && !benchMayImport(pkg) {
				t.Errorf("%s imports app/bench: only app/cli and app/cmd may (it drives whole app instances)", pkg)
			}
			if layer != "app" && layer != "cmd" && (d == module+"/app" || strings.HasPrefix(d, module+"/app/tray") || strings.HasPrefix(d, module+"/app/cli")) {
				t.Errorf("%s imports %s: nothing below app may", pkg, d)
			}
		}
	}
	if sharing != len(sharers) {
		t.Errorf("go list saw %d of the %d packages that share %s: update sharers", sharing, len(sharers), sharedPkg)
	}
	if seen < 5 {
		t.Fatalf("go list saw only %d packages", seen)
	}
}

func TestLayerOf(t *testing.T) {
	for pkg, want := range map[string]string{
		module + "/store": "store", module + "/store/config": "store", module + "/proxy": "proxy",
		module + "/proxy/openai": "proxy/*", module + "/app/learner/tinker": "learner", module + "/app/tray": "app",
		module + "/app/cmd/metaclaw": "cmd", module + "/web": "web", module + "/idle": "idle",
		module + "/proxy/learning": "shared", module + "/proxy/learningx": "proxy/*",
		module + "/app/learner/memory/memapi": "learner", module + "/app/control": "app",
		module + "/idle/windows": "idle", module + "/" + testutilPkg: "testutil",
	} {
		if got := layerOf(pkg); got != want {
			t.Errorf("layerOf(%s) = %s, want %s", pkg, got, want)
		}
	}
}

// benchMayImport reports whether pkg may depend on app/bench, which sits
// beside app/cli above app: the CLI, the main, and the bench's own test
// support.
func benchMayImport(pkg string) bool {
	rel := strings.TrimPrefix(pkg, module+"/")
	return rel == "app/cli" || strings.HasPrefix(rel, "app/cmd/") || strings.HasPrefix(rel, "app/bench")
}

// windowsMayImport reports whether pkg may depend on idle/windows, the
// training-window service above idle and idle/calendar: nothing in idle
// may (it would make a cycle of layers inside idle).
func windowsMayImport(pkg string) bool {
	return layerOf(pkg) != "idle" || strings.HasPrefix(pkg, module+"/idle/windows")
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}
