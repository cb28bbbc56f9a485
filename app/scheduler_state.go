package app

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/metaclaw/metaclaw/idle"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
)

// MetaSchedulerState is the meta key where the running app records the
// training-window state as JSON (SchedulerState): on every transition and
// every schedStateEvery, so that other processes (`metaclaw scheduler
// status`, `metaclaw status`) can read it.
const MetaSchedulerState = "scheduler_state"

// SchedulerState is the training-window state as the tray, the web page
// and the CLI show it.
type SchedulerState struct {
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

// SchedulerEnabled reports whether cfg uses training windows: when the
// effective mode is madmax, or scheduler.enabled is set.
func SchedulerEnabled(cfg config.Config) bool {
	return cfg.Resolve().Mode == "madmax" || cfg.Scheduler.Enabled
}

// SchedulerOffDetail says why training windows are off in cfg.
func SchedulerOffDetail(cfg config.Config) string {
	return fmt.Sprintf("training windows are off: mode %s (madmax or scheduler.enabled turns them on)", cfg.Resolve().Mode)
}

// ReadSchedulerState reads what the running app last recorded; ok is false
// when nothing was ever recorded.
func ReadSchedulerState(ctx context.Context, db *store.DB) (st SchedulerState, ok bool, err error) {
	v, err := db.Meta(ctx, MetaSchedulerState)
	if err != nil || v == "" {
		return st, false, err
	}
	if err := json.Unmarshal([]byte(v), &st); err != nil {
		return st, false, fmt.Errorf("read scheduler state: %w", err)
	}
	return st, true, nil
}

func writeSchedulerState(ctx context.Context, db *store.DB, st SchedulerState) error {
	b, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("encode scheduler state: %w", err)
	}
	return db.SetMeta(ctx, MetaSchedulerState, string(b))
}

// WithWindow returns st with the fields of window w.
func (st SchedulerState) WithWindow(w idle.Window) SchedulerState {
	st.Open, st.Reason, st.Detail = w.Open, w.Reason, w.Detail
	st.Since, st.Until = time.Time{}, time.Time{}
	if w.Open {
		st.Since, st.Until = w.Since, w.Until
	}
	return st
}

// Summary is the state in a few words: "open (sleep) until 07:00",
// "open (idle)", "shut" or "off".
func (st SchedulerState) Summary() string {
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
func (st SchedulerState) IdleText() string {
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
