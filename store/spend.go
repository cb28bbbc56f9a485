package store

import (
	"context"
	"database/sql"
	"fmt"
)

// Spend is what one learner component spent on one local day.
type Spend struct {
	Day              string // YYYY-MM-DD, local time
	Component        string // judge, evolver, extraction, embeddings, trainer
	Calls            int
	Failures         int
	PromptTokens     int
	CompletionTokens int
}

// AddSpend adds one call's counts to its day and component.
func (db *DB) AddSpend(ctx context.Context, s Spend) error {
	_, err := db.sql.ExecContext(ctx, `INSERT INTO learning_spend(day, component, calls, failures, prompt_tokens, completion_tokens)
		VALUES(?,?,?,?,?,?) ON CONFLICT(day, component) DO UPDATE SET calls = calls + excluded.calls,
		failures = failures + excluded.failures, prompt_tokens = prompt_tokens + excluded.prompt_tokens,
		completion_tokens = completion_tokens + excluded.completion_tokens`,
		s.Day, s.Component, s.Calls, s.Failures, s.PromptTokens, s.CompletionTokens)
	if err != nil {
		return fmt.Errorf("record learning spend: %w", err)
	}
	return nil
}

// SpendSince returns the spend of every day from day on (YYYY-MM-DD),
// newest day first, components by name.
func (db *DB) SpendSince(ctx context.Context, day string) ([]Spend, error) {
	var out []Spend
	err := queryRows(ctx, db.sql, `SELECT day, component, calls, failures, prompt_tokens, completion_tokens
		FROM learning_spend WHERE day >= ? ORDER BY day DESC, component`, []any{day}, func(rows *sql.Rows) error {
		var s Spend
		err := rows.Scan(&s.Day, &s.Component, &s.Calls, &s.Failures, &s.PromptTokens, &s.CompletionTokens)
		out = append(out, s)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read learning spend: %w", err)
	}
	return out, nil
}
