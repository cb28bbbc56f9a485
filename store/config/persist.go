package config

import (
	"context"
	"fmt"
	"sort"

	"github.com/metaclaw/metaclaw/store"
)

// Load reads the configuration from the settings table over the defaults.
// A stored key this build does not know, or a stored value it cannot accept
// (say, written by a newer MetaClaw), is reported in warnings and the default
// is used: a bad row never stops MetaClaw from starting.
func Load(ctx context.Context, db *store.DB) (Config, []string, error) {
	c := Defaults()
	rows, err := db.Settings(ctx)
	if err != nil {
		return c, nil, fmt.Errorf("load config: %w", err)
	}
	var warnings []string
	keys := make([]string, 0, len(rows))
	for k := range rows {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := c.Set(k, rows[k]); err != nil {
			warnings = append(warnings, fmt.Sprintf("stored setting ignored: %v", err))
		}
	}
	return c, warnings, nil
}

// Save validates every change and writes them all in one transaction, or
// none when any is refused. Keys may be aliases; values are stored in
// canonical form under the canonical key. A value equal to the default is
// stored too, so an explicit choice survives a change of default.
func Save(ctx context.Context, db *store.DB, changes map[string]string) (Config, error) {
	c, _, err := Load(ctx, db)
	if err != nil {
		return c, err
	}
	set, err := Validate(changes)
	if err != nil {
		return c, err
	}
	for k, v := range set {
		f, _ := Lookup(k)
		_ = c.setNormalized(f, v)
	}
	if err := db.UpdateSettings(ctx, set, nil); err != nil {
		return c, fmt.Errorf("save config: %w", err)
	}
	return c, nil
}

// Validate normalises a set of changes, keyed by canonical key. It returns
// an Errors listing every refused key when any is refused.
func Validate(changes map[string]string) (map[string]string, error) {
	set := make(map[string]string, len(changes))
	var errs Errors
	keys := make([]string, 0, len(changes))
	for k := range changes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		f, v, err := Normalize(k, changes[k])
		if err != nil {
			errs = append(errs, err.(*Error))
			continue
		}
		set[f.Key] = v
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return set, nil
}

// Errors is a list of refused keys and values.
type Errors []*Error

func (es Errors) Error() string {
	s := ""
	for i, e := range es {
		if i > 0 {
			s += "\n"
		}
		s += e.Error()
	}
	return s
}

// Reset removes stored values so the keys return to their defaults.
func Reset(ctx context.Context, db *store.DB, keys []string) error {
	var canon []string
	for _, k := range keys {
		f, ok := Lookup(k)
		if !ok {
			return &Error{Key: k, Reason: "unknown key"}
		}
		canon = append(canon, f.Key)
	}
	return db.UpdateSettings(ctx, nil, canon)
}
