package web

import (
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/metaclaw/metaclaw/store"
)

func memoryURL(id int64) string { return "/memory/" + strconv.FormatInt(id, 10) }

// memoryListData is the memory page: the filter, the memories shown and
// the add form.
type memoryListData struct {
	Query, Scope, Type string
	History            bool
	Scopes             []store.MemoryScope
	Types              []string
	Memories           []store.Memory
	Form               memoryForm
}

// memoryForm is the add or edit form.
type memoryForm struct {
	Scope, Type, Topic, Content string
	Pinned                      bool
	Err                         string
}

func (s *Server) memoryList(c *fiber.Ctx) error {
	d := memoryListData{Query: strings.TrimSpace(c.Query("q")), Scope: c.Query("scope"), Type: c.Query("type"),
		History: c.Query("history") == "on", Form: memoryForm{Scope: store.DefaultScope, Type: store.MemoryFact}}
	return s.renderMemoryList(c, fiber.StatusOK, d)
}

func (s *Server) renderMemoryList(c *fiber.Ctx, status int, d memoryListData) error {
	ctx := c.UserContext()
	var err error
	if d.Scopes, err = s.opts.DB.MemoryScopes(ctx); err != nil {
		return err
	}
	d.Types = store.MemoryTypes
	if d.Query != "" {
		hits, err := s.opts.DB.SearchMemories(ctx, store.MemorySearch{Scope: d.Scope, Query: d.Query, History: d.History, Limit: 100})
		if err != nil {
			return err
		}
		for _, h := range hits {
			if d.Type == "" || h.Type == d.Type {
				d.Memories = append(d.Memories, h.Memory)
			}
		}
	} else {
		f := store.MemoryFilter{Scope: d.Scope, Type: d.Type, History: d.History, Limit: 300}
		if d.Memories, err = s.opts.DB.Memories(ctx, f); err != nil {
			return err
		}
	}
	return s.render(c, status, memoryPage(s.page(c, "Memory", "memory"), d))
}

func readMemoryForm(c *fiber.Ctx) memoryForm {
	return memoryForm{Scope: strings.TrimSpace(c.FormValue("scope")), Type: c.FormValue("type"),
		Topic: strings.TrimSpace(c.FormValue("topic")), Content: strings.TrimSpace(c.FormValue("content")),
		Pinned: c.FormValue("pinned") == "on"}
}

func (s *Server) memoryCreate(c *fiber.Ctx) error {
	f := readMemoryForm(c)
	m, err := s.opts.Memory.AddMemory(c.UserContext(), store.MemoryInput{Scope: f.Scope, Type: f.Type, Topic: f.Topic,
		Content: f.Content, Pinned: f.Pinned})
	if err != nil {
		f.Err = err.Error()
		return s.renderMemoryList(c, fiber.StatusUnprocessableEntity, memoryListData{Form: f})
	}
	return s.done(c, memoryURL(m.ID), "Memory saved.")
}

// memoryViewData is one memory's page: it, its versions and the edit form.
type memoryViewData struct {
	Memory  store.Memory
	History []store.Memory
	Types   []string
	Form    memoryForm
}

func (s *Server) memoryView(c *fiber.Ctx) error {
	m, err := s.memoryParam(c)
	if err != nil {
		return err
	}
	d := memoryViewData{Memory: m, Types: store.MemoryTypes, Form: memoryForm{Type: m.Type, Topic: m.Topic, Content: m.Content}}
	return s.renderMemory(c, fiber.StatusOK, d)
}

func (s *Server) renderMemory(c *fiber.Ctx, status int, d memoryViewData) error {
	var err error
	if d.History, err = s.opts.DB.MemoryHistory(c.UserContext(), d.Memory.ID); err != nil {
		return err
	}
	return s.render(c, status, memoryViewPage(s.page(c, "Memory "+strconv.FormatInt(d.Memory.ID, 10), "memory"), d))
}

func (s *Server) memoryParam(c *fiber.Ctx) (store.Memory, error) {
	id, err := strconv.ParseInt(c.Params("id"), 10, 64)
	if err != nil {
		return store.Memory{}, fiber.ErrNotFound
	}
	return s.opts.DB.Memory(c.UserContext(), id)
}

func (s *Server) memoryUpdate(c *fiber.Ctx) error {
	m, err := s.memoryParam(c)
	if err != nil {
		return err
	}
	f := readMemoryForm(c)
	nm, err := s.opts.Memory.EditMemory(c.UserContext(), m.ID, f.Content, f.Type, f.Topic)
	if err != nil {
		f.Err = err.Error()
		return s.renderMemory(c, fiber.StatusUnprocessableEntity, memoryViewData{Memory: m, Types: store.MemoryTypes, Form: f})
	}
	return s.done(c, memoryURL(nm.ID), "Memory edited; the earlier text is kept as history.")
}

// memoryAction pins, unpins or forgets a memory.
func (s *Server) memoryAction(c *fiber.Ctx) error {
	m, err := s.memoryParam(c)
	if err != nil {
		return err
	}
	ctx := c.UserContext()
	switch c.Params("action") {
	case "pin", "unpin":
		if err := s.opts.Memory.PinMemory(ctx, m.ID, c.Params("action") == "pin"); err != nil {
			return err
		}
		return s.done(c, memoryURL(m.ID), "Memory "+c.Params("action")+"ned.")
	case "forget":
		if err := s.opts.Memory.ForgetMemory(ctx, m.ID); err != nil {
			return err
		}
		return s.done(c, "/memory", "Memory forgotten: it and its earlier versions are deleted.")
	}
	return fiber.ErrNotFound
}
