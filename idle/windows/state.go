package windows

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/metaclaw/metaclaw/idle"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
)

// MetaState is the meta key where the running service records the
// training-window state as JSON (State): on every transition and every
// StateEvery, so that other processes (`metaclaw scheduler status`,
// `metaclaw status`) can read it.
const MetaState = "scheduler_state"

// State is the training-window state as the tray, the web page and the
// CLI show it.
type State struct {
	// Enabled says whether training windows are in use (mode madmax or
	// scheduler.enabled); the other fields are meaningful only when set.
	Enabled bool   `json:"enabled"`
	Open    bool   `json:"open"`
	Reason  string `json:"reason,omitempty"` // idle.ReasonSleep, ReasonIdle or ReasonMeeting while open
	// Since is when the open window began; Until when it ends (zero when
	// unknown: an idle window ends when input returns).
	Since  time.Time `json:"since,omitzero"`
	Until  time.Time `json:"until,omitzero"`
	Detail string    `json:"detail"`
	// IdleSource names the keyboard idle mechanism in use ("" when none);
	// IdleError says why no keyboard/mouse mechanism answered.
	IdleSource     string `json:"idle_source,omitempty"`
	IdleError      string `json:"idle_error,omitempty"`
	ScreenFallback bool   `json:"screen_fallback"` // scheduler.screen_fallback
	// Calendar is the Google Calendar signal in words ("off", "connected",
	// "not connected: run `metaclaw calendar connect`", ...).
	Calendar          string    `json:"calendar"`
	CalendarConnected bool      `json:"calendar_connected"`
	Paused            bool      `json:"paused"` // learning paused: every window shut
	UpdatedAt         time.Time `json:"updated_at"`
}

// Enabled reports whether cfg uses training windows: when the effective
// mode is madmax, or scheduler.enabled is set.
func Enabled(cfg config.Config) bool {
	return cfg.Resolve().Mode == config.ModeMadmax || cfg.Scheduler.Enabled
}

// OffDetail says why training windows are off in cfg.
func OffDetail(cfg config.Config) string {
	return fmt.Sprintf("training windows are off: mode %s (madmax or scheduler.enabled turns them on)", cfg.Resolve().Mode)
}

// ReadState reads what the running service last recorded; ok is false
// when nothing was ever recorded.
func ReadState(ctx context.Context, db *store.DB) (st State, ok bool, err error) {
	v, err := db.Meta(ctx, MetaState)
	if err != nil || v == "" {
		return st, false, err
	}
	if err := json.Unmarshal([]byte(v), &st); err != nil {
		return st, false, fmt.Errorf("read scheduler state: %w", err)
	}
	return st, true, nil
}

func writeState(ctx context.Context, db *store.DB, st State) error {
	b, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("encode scheduler state: %w", err)
	}
	return db.SetMeta(ctx, MetaState, string(b))
}

// WithWindow returns st with the fields of window w.
func (st State) WithWindow(w idle.Window) State {
	st.Open, st.Reason, st.Detail = w.Open, w.Reason, w.Detail
	st.Since, st.Until = time.Time{}, time.Time{}
	if w.Open {
		st.Since, st.Until = w.Since, w.Until
	}
	return st
}

// Summary is the state in a few words: "open (sleep) until 07:00",
// "open (idle)", "shut" or "off".
func (st State) Summary() string {
	switch {
	case !st.Enabled:
		return "off"
	case !st.Open:
		return "shut"
	case st.Until.IsZero():
		return "open (" + st.Reason + ")"
	}
	return fmt.Sprintf("open (%s) until %s", st.Reason, clockText(st.Until, st.UpdatedAt))
}

// IdleText says which keyboard idle signal is used, or why there is none
// and whether the screen-activity fallback stands in.
func (st State) IdleText() string {
	if st.IdleSource != "" && st.IdleError == "" {
		return st.IdleSource
	}
	var s string
	switch {
	case st.IdleSource != "": // the screen-activity fallback after a failed detection
		s = st.IdleSource + " (fallback)"
	case st.ScreenFallback:
		s = "none (the screen-activity fallback runs in the app only)"
	default:
		s = "none (scheduler.screen_fallback is off)"
	}
	if st.IdleError != "" {
		s += "; " + st.IdleError
	}
	return s
}

// clockText formats t as "15:04", or "Mon 15:04" when it is a day or more
// from now.
func clockText(t, now time.Time) string {
	t = t.Local()
	if d := t.Sub(now); d >= 24*time.Hour || d <= -24*time.Hour {
		return t.Format("Mon 15:04")
	}
	return t.Format("15:04")
}
