// Package tray is MetaClaw's tray icon and menu, a thin skin over the app
// core through the narrow Control interface. It is the only importer of
// fyne.io/systray; app/cli imports it. What the icon and the menu show is
// computed by a pure function (ViewOf, menu.go) so it can be table-tested
// without a desktop.
//
// On macOS the tray must run on the main thread: main calls RunMain.
package tray

import (
	"context"
	"errors"
	"log/slog"
	"runtime"
	"sync/atomic"
	"time"

	"fyne.io/systray"
)

// Control is what the tray needs from the running app.
type Control interface {
	Status() Status
	SetPaused(paused bool) error
	SetAutostart(on bool) error
	OpenWeb() error // open the web page in the browser
	OpenLog() error // open the log file
}

// ErrNoHost means there is a session bus but no tray host on it yet, as at
// login before the panel is up (Linux). The icon appears as soon as a host
// starts (systray registers again when a StatusNotifierWatcher appears), so
// Run is still worth calling.
var ErrNoHost = errors.New("no tray host (StatusNotifierWatcher) on the session bus yet")

// refreshEvery is how often the tray reads the status again, to follow
// changes made elsewhere (CLI, web page, the day's turns). A status read is
// one indexed count in the database.
const refreshEvery = 5 * time.Second

// Run shows the icon and menu until the person chooses Quit (it returns
// true) or ctx ends (it returns false). Call Available first: without a
// session bus systray would block for ever. noHost says Available found no
// tray host yet: the icon is then ready and appears when one starts, and
// systray's registration failure meanwhile is not an error.
func Run(ctx context.Context, c Control, log *slog.Logger, noHost bool) (quit bool) {
	defer captureSystrayLog(log, noHost)()
	m := &menu{c: c, log: log, noHost: noHost}
	stopped := make(chan struct{}) // closed when the event loop has returned
	if noHost {
		go keepRegistered(stopped, log)
	}
	go func() {
		select {
		case <-ctx.Done():
			systray.Quit()
		case <-stopped:
		}
	}()
	err := runLoop(func() { m.ready(stopped) }, nil)
	close(stopped)
	if err != nil {
		log.Warn("no tray icon", "reason", err.Error())
		return false
	}
	return m.quit.Load()
}

// menu is the tray's menu items and what they show.
type menu struct {
	c      Control
	log    *slog.Logger
	noHost bool        // no tray host was found at start
	quit   atomic.Bool // the person chose Quit

	// The fields below belong to the goroutine running loop.
	status, window, problem, open, pause, autostart, openLog, quitItem *systray.MenuItem
	view                                                               View
	icon                                                               string
}

// action is a menu choice, relayed from an item's ClickedCh.
type action int

const (
	actOpen action = iota
	actPause
	actAutostart
	actOpenLog
	actQuit
)

// ready builds the menu (systray calls it once its loop runs) and starts
// the goroutines that serve it until stopped is closed.
func (m *menu) ready(stopped <-chan struct{}) {
	v := ViewOf(m.c.Status())
	if runtime.GOOS != "darwin" { // on macOS the title would sit next to the icon
		systray.SetTitle("MetaClaw")
	}
	m.status = systray.AddMenuItem(v.StatusLine, "Mode · proxy address · turns today")
	m.status.Disable()
	m.window = systray.AddMenuItem("", "Training runs only inside a window: sleep hours, keyboard idle or a meeting")
	m.window.Disable()
	m.problem = systray.AddMenuItem("", "")
	systray.AddSeparator()
	m.open = systray.AddMenuItem("Open MetaClaw", "Open the dashboard in your browser")
	m.pause = systray.AddMenuItemCheckbox(v.Pause.Label, v.Pause.Tip, v.Pause.Checked)
	m.autostart = systray.AddMenuItemCheckbox(v.Autostart.Label, v.Autostart.Tip, v.Autostart.Checked)
	m.openLog = systray.AddMenuItem("Open log", "Open MetaClaw's log file")
	systray.AddSeparator()
	m.quitItem = systray.AddMenuItem("Quit", "Stop MetaClaw")
	m.apply(v, true)

	// Each item's clicks are relayed to one buffered channel: systray drops
	// a click when nobody is receiving, and the loop is sometimes busy.
	acts := make(chan action, 8)
	relay := func(item *systray.MenuItem, a action) {
		for {
			select {
			case <-item.ClickedCh:
				select {
				case acts <- a:
				case <-stopped:
					return
				}
			case <-stopped:
				return
			}
		}
	}
	go relay(m.open, actOpen)
	go relay(m.problem, actOpen) // the problem is fixed on the web page
	go relay(m.pause, actPause)
	go relay(m.autostart, actAutostart)
	go relay(m.openLog, actOpenLog)
	go relay(m.quitItem, actQuit)
	go m.loop(acts, stopped)
	if m.noHost {
		m.log.Info("tray menu ready; the icon shows as soon as a tray host starts")
	} else {
		m.log.Info("tray icon shown; tray menu ready")
	}
}

// loop carries out the menu choices and refreshes the menu.
func (m *menu) loop(acts <-chan action, stopped <-chan struct{}) {
	tick := time.NewTicker(refreshEvery)
	defer tick.Stop()
	for {
		select {
		case a := <-acts:
			if a == actQuit {
				m.log.Info("quit chosen in the tray")
				m.quit.Store(true)
				systray.Quit()
				return
			}
			m.do(a)
		case <-tick.C:
			m.apply(ViewOf(m.c.Status()), false)
		case <-stopped:
			return
		}
	}
}

// do carries out one menu choice. Check items then show the state read
// back, so they never claim what did not happen.
func (m *menu) do(a action) {
	var err error
	switch a {
	case actOpen:
		if err = m.c.OpenWeb(); err != nil {
			m.log.Warn("tray: could not open MetaClaw", "err", err)
		}
	case actOpenLog:
		if err = m.c.OpenLog(); err != nil {
			m.log.Warn("tray: could not open the log", "err", err)
		}
	case actPause:
		paused := !m.view.Pause.Checked
		if err = m.c.SetPaused(paused); err != nil {
			m.log.Warn("tray: could not change learning", "paused", paused, "err", err)
		} else if paused {
			m.log.Info("learning paused", "from", "tray")
		} else {
			m.log.Info("learning resumed", "from", "tray")
		}
	case actAutostart:
		on := !m.view.Autostart.Checked
		if err = m.c.SetAutostart(on); err != nil {
			m.log.Warn("tray: could not change start at login", "on", on, "err", err)
		} else {
			m.log.Info("start at login changed", "on", on, "from", "tray")
		}
	}
	m.apply(ViewOf(m.c.Status()), false)
}

// apply shows a view, touching only what changed (each change is a D-Bus
// signal on Linux).
func (m *menu) apply(v View, all bool) {
	old := m.view
	if all || v.Icon != m.icon {
		if b, err := iconData(v.Icon); err != nil {
			m.log.Warn("tray icon", "err", err)
		} else {
			systray.SetIcon(b)
			m.icon = v.Icon
		}
	}
	if all || v.Tooltip != old.Tooltip {
		systray.SetTooltip(v.Tooltip)
	}
	if all || v.StatusLine != old.StatusLine {
		m.status.SetTitle(menuLabel(v.StatusLine, runtime.GOOS))
	}
	if all || v.WindowLine != old.WindowLine {
		m.window.SetTitle(menuLabel(v.WindowLine, runtime.GOOS))
		if v.WindowLine == "" {
			m.window.Hide()
		} else {
			m.window.Show()
		}
	}
	if all || v.Problem != old.Problem || v.ProblemTip != old.ProblemTip {
		m.problem.SetTitle(menuLabel(v.Problem, runtime.GOOS))
		m.problem.SetTooltip(v.ProblemTip)
		if v.Problem == "" {
			m.problem.Hide()
		} else {
			m.problem.Show()
		}
	}
	setCheck(m.pause, old.Pause, v.Pause, all)
	setCheck(m.autostart, old.Autostart, v.Autostart, all)
	m.view = v
}

func setCheck(item *systray.MenuItem, old, c Check, all bool) {
	if all || c.Label != old.Label {
		item.SetTitle(c.Label)
	}
	if all || c.Tip != old.Tip {
		item.SetTooltip(c.Tip)
	}
	if all || c.Checked != old.Checked {
		if c.Checked {
			item.Check()
		} else {
			item.Uncheck()
		}
	}
}
