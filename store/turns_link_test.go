package store

import (
	"context"
	"path/filepath"
	"testing"
)

func TestRecordTurnsLinksSample(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "metaclaw.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	s := &Sample{SessionID: "s1", PromptTokens: []int{1, 2}, SampledTokens: []int{3}, SampledLogprobs: []float64{-0.5},
		BaseModel: "Qwen/Qwen3-8B", Checkpoint: "Qwen/Qwen3-8B", Trainable: true}
	if err := db.InsertSample(ctx, s); err != nil {
		t.Fatal(err)
	}
	turn := &Turn{SessionID: "s1", API: "openai", Model: "m", Status: 200, SampleID: s.ID}
	if err := db.RecordTurns(ctx, []*Turn{turn}); err != nil {
		t.Fatal(err)
	}
	got, err := db.SampleForTurn(ctx, turn.ID)
	if err != nil || got.ID != s.ID {
		t.Fatalf("SampleForTurn(%d) = %+v, %v; want sample %d", turn.ID, got, err, s.ID)
	}
}
