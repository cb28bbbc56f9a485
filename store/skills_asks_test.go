package store

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"
)

func TestSkillAsks(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	ctx := context.Background()
	in := SkillInput{Name: "tls-renewal", Description: "Renew a TLS certificate.", Body: "Run certbot renew."}
	s, _, err := db.PutSkill(ctx, in)
	if err != nil || s.Asks != nil {
		t.Fatalf("PutSkill = %+v, %v", s, err)
	}
	stamp, _ := db.SkillsStamp(ctx)
	epoch := db.SkillsEpoch()
	asks := []string{"the browser says my site is not secure", "certificado caducado"}
	time.Sleep(2 * time.Millisecond) // the stamp counts milliseconds
	must(t, db.SetSkillAsks(ctx, "tls-renewal", 1, asks))
	if s, _ := db.Skill(ctx, "tls-renewal"); !slices.Equal(s.Asks, asks) || s.Version != 1 {
		t.Errorf("after SetSkillAsks: %+v", s)
	}
	if st, _ := db.SkillsStamp(ctx); st == stamp || db.SkillsEpoch() == epoch {
		t.Error("SetSkillAsks moved neither the stamp nor the epoch: readers would not reload")
	}
	if err := db.SetSkillAsks(ctx, "tls-renewal", 2, asks); !errors.Is(err, ErrNotFound) {
		t.Errorf("asks for a version that is not current: %v", err)
	}
	if err := db.SetSkillAsks(ctx, "nope", 1, asks); !errors.Is(err, ErrNotFound) {
		t.Errorf("asks for an unknown skill: %v", err)
	}

	// The same content without asks (a SKILL.md that has none) keeps them;
	// with other asks it replaces them in place, making no version.
	if _, changed, _ := db.PutSkill(ctx, in); changed {
		t.Error("the same content without asks changed the skill")
	}
	if s, _ := db.Skill(ctx, "tls-renewal"); !slices.Equal(s.Asks, asks) {
		t.Errorf("the same content without asks dropped them: %v", s.Asks)
	}
	in.Asks = []string{"https warning on my shop"}
	if s, changed, _ := db.PutSkill(ctx, in); !changed || s.Version != 1 || !slices.Equal(s.Asks, in.Asks) {
		t.Errorf("other asks: changed %v, %+v", changed, s)
	}
	hits, _ := db.SearchSkills(ctx, "renew certificate", 3)
	if len(hits) != 1 || !slices.Equal(hits[0].Asks, in.Asks) {
		t.Errorf("SearchSkills = %+v", hits)
	}

	// New content is a new version, whose asks are its own.
	in.Body, in.Asks = "Run certbot renew, then reload nginx.", nil
	if s, _, _ := db.PutSkill(ctx, in); s.Version != 2 || s.Asks != nil {
		t.Errorf("new version kept the old asks: %+v", s)
	}
	// A revert brings the old version's asks back with its content.
	s, err = db.RevertSkill(ctx, "tls-renewal", 1)
	if err != nil || s.Version != 3 || !slices.Equal(s.Asks, []string{"https warning on my shop"}) {
		t.Errorf("revert = %+v, %v", s, err)
	}
	vs, _ := db.SkillVersions(ctx, "tls-renewal")
	if len(vs) != 3 || vs[1].Asks != nil || len(vs[0].Asks) != 1 {
		t.Errorf("versions' asks: %+v", vs)
	}
}
