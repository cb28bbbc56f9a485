package control

import (
	"context"
	"fmt"

	"github.com/metaclaw/metaclaw/app/learner/memory"
	"github.com/metaclaw/metaclaw/app/learner/skills"
	"github.com/metaclaw/metaclaw/proxy"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/web"
)

// MemoryEditor adapts the memory service to the web page's MemoryEditor,
// so that a memory added on the page is consolidated like an extracted one
// and the retriever sees every change at once.
type MemoryEditor struct{ Service *memory.Service }

var _ web.MemoryEditor = MemoryEditor{}

// AddMemory adds a memory through the service.
func (m MemoryEditor) AddMemory(ctx context.Context, in store.MemoryInput) (store.Memory, error) {
	ch, err := m.Service.Add(ctx, in)
	return ch.Memory, err
}

// EditMemory makes a new version of a memory.
func (m MemoryEditor) EditMemory(ctx context.Context, id int64, content, typ, topic string) (store.Memory, error) {
	ch, err := m.Service.Edit(ctx, id, content, typ, topic)
	return ch.Memory, err
}

// PinMemory pins or unpins a memory.
func (m MemoryEditor) PinMemory(ctx context.Context, id int64, pinned bool) error {
	_, err := m.Service.SetPinned(ctx, id, pinned)
	return err
}

// ForgetMemory forgets one memory.
func (m MemoryEditor) ForgetMemory(ctx context.Context, id int64) error {
	_, err := m.Service.Forget(ctx, "", []int64{id})
	return err
}

// SkillExplainer adapts the skill retriever to the web page's
// SkillExplainer.
type SkillExplainer struct{ Retriever *skills.Retriever }

var _ web.SkillExplainer = SkillExplainer{}

// ExplainSkills runs retrieval on a recorded request, read as the proxy
// reads a request (proxy.Conversation; a request recorded translated to
// the other API is read as that one).
func (s SkillExplainer) ExplainSkills(ctx context.Context, api string, request []byte) (web.SkillExplanation, error) {
	conv, err := proxy.Conversation(api, request)
	if err != nil {
		other := map[string]string{"openai": "anthropic", "anthropic": "openai"}[api]
		if conv, err = proxy.Conversation(other, request); err != nil {
			return web.SkillExplanation{}, fmt.Errorf("read the request: %w", err)
		}
	}
	sel, err := s.Retriever.Select(ctx, conv)
	if err != nil {
		return web.SkillExplanation{}, err
	}
	out := web.SkillExplanation{Request: sel.Query, Terms: sel.Terms, Mode: sel.Mode}
	for _, c := range sel.Considered {
		out.Rule = c.Threshold
		out.Skills = append(out.Skills, web.ExplainedSkill{Name: c.Skill.Name, Version: c.Skill.Version, Score: c.Score,
			Coverage: c.Coverage, Relative: c.Relative, Efficacy: c.Efficacy, Similarity: c.Cosine, Fused: c.Fused,
			Matched: c.Matched, ViaAsks: c.ViaAsks, Injected: c.Injected, Reason: c.Reason})
	}
	return out, nil
}
