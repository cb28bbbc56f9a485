package store

import (
	"context"
	"fmt"
)

// Settings returns every stored setting as key → raw text value.
func (db *DB) Settings(ctx context.Context) (map[string]string, error) {
	rows, err := db.sql.QueryContext(ctx, "SELECT key, value FROM settings")
	if err != nil {
		return nil, fmt.Errorf("read settings: %w", err)
	}
	defer rows.Close()
	out := make(map[string]string)
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, fmt.Errorf("read settings: %w", err)
		}
		out[k] = v
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read settings: %w", err)
	}
	return out, nil
}

// UpdateSettings writes set and removes the keys in unset, all in one
// transaction: either every change lands or none does.
func (db *DB) UpdateSettings(ctx context.Context, set map[string]string, unset []string) error {
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("write settings: %w", err)
	}
	defer tx.Rollback()
	now := nowMillis()
	for k, v := range set {
		_, err := tx.ExecContext(ctx, `INSERT INTO settings(key, value, updated_at) VALUES(?, ?, ?)
			ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`, k, v, now)
		if err != nil {
			return fmt.Errorf("write setting %s: %w", k, err)
		}
	}
	for _, k := range unset {
		if _, err := tx.ExecContext(ctx, "DELETE FROM settings WHERE key = ?", k); err != nil {
			return fmt.Errorf("delete setting %s: %w", k, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("write settings: %w", err)
	}
	return nil
}
