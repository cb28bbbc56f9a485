package web

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/metaclaw/metaclaw/store/config"
)

// setupForm is the first-run setup: what `metaclaw setup` asks.
type setupForm struct {
	Provider, APIBase, Model, Mode, Port string
	KeySet, RLKeySet                     bool
	Presets                              []config.Preset
	Problems                             []string
	Errors                               map[string]string // by config key
}

func (s *Server) setupForm(ctx context.Context) (setupForm, error) {
	cur, _, err := config.Load(ctx, s.opts.DB)
	if err != nil {
		return setupForm{}, err
	}
	return setupForm{Provider: cur.LLM.Provider, APIBase: cur.LLM.APIBase, Model: cur.LLM.ModelID, Mode: cur.Mode,
		Port: strconv.Itoa(cur.Proxy.Port), KeySet: cur.LLM.APIKey != "", RLKeySet: cur.RL.APIKey != "",
		Presets: config.Presets, Problems: cur.Resolve().Problems}, nil
}

// setupTest tests the connection to the saved provider (the Test
// connection button) and says what failed.
func (s *Server) setupTest(c *fiber.Ctx) error {
	if err := s.opts.Control.TestConnection(c.UserContext()); err != nil {
		return s.done(c, "/setup", "The provider did not answer: "+err.Error())
	}
	return s.done(c, "/setup", "The provider answered: llm.* works.")
}

func (s *Server) setup(c *fiber.Ctx) error {
	f, err := s.setupForm(c.UserContext())
	if err != nil {
		return err
	}
	return s.render(c, fiber.StatusOK, setupPage(s.page(c, "Setup", "settings"), f))
}

// setupSave saves the setup answers with the CLI's validation, all or
// nothing. Keys left empty keep their values.
func (s *Server) setupSave(c *fiber.Ctx) error {
	ctx := c.UserContext()
	f, err := s.setupForm(ctx)
	if err != nil {
		return err
	}
	changes, errs := setupChanges(c, f)
	if len(errs) == 0 {
		_, err = config.Save(ctx, s.opts.DB, changes)
		var ce config.Errors
		if !errors.As(err, &ce) {
			if err != nil {
				return err
			}
			msg := "Setup saved. " + s.savedMessage(sortedKeys(changes))
			if err := s.opts.Control.TestConnection(ctx); err != nil {
				msg += " But the provider did not answer: " + err.Error()
			} else {
				msg += " The provider answered."
			}
			return s.done(c, "/", msg)
		}
		for _, e := range ce {
			if fl, ok := config.Lookup(e.Key); ok {
				errs[fl.Key] = e.Error()
			}
		}
	}
	f.Provider, f.APIBase, f.Model = changes["llm.provider"], changes["llm.api_base"], changes["llm.model_id"]
	f.Mode, f.Port, f.Errors = changes["mode"], changes["proxy.port"], errs
	return s.render(c, fiber.StatusUnprocessableEntity, setupPage(s.page(c, "Setup", "settings"), f))
}

// setupChanges reads the setup form as `metaclaw setup` reads its flags: a
// new provider brings its preset's base URL and model unless the person
// typed others; custom needs both.
func setupChanges(c *fiber.Ctx, cur setupForm) (map[string]string, map[string]string) {
	errs := map[string]string{}
	p, ok := config.PresetByName(c.FormValue("llm.provider"))
	if !ok {
		errs["llm.provider"] = "llm.provider: choose one of the providers"
		p = config.Preset{Name: c.FormValue("llm.provider")}
	}
	base, model := strings.TrimSpace(c.FormValue("llm.api_base")), strings.TrimSpace(c.FormValue("llm.model_id"))
	if p.Name != cur.Provider {
		if base == "" || base == cur.APIBase {
			base = p.APIBase
		}
		if model == "" || model == cur.Model {
			model = p.Model
		}
	}
	ch := map[string]string{"llm.provider": p.Name, "llm.api_base": base, "llm.model_id": model,
		"mode": c.FormValue("mode"), "proxy.port": c.FormValue("proxy.port")}
	if p.Name == "custom" && (base == "" || model == "") {
		errs["llm.api_base"] = "a custom provider needs a base URL and a model"
	}
	for _, k := range []string{"llm.api_key", "rl.api_key"} {
		if v := strings.TrimSpace(c.FormValue(k)); v != "" {
			ch[k] = v
		}
	}
	return ch, errs
}
