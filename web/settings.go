package web

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/metaclaw/metaclaw/store/config"
)

// settingField is one key on the settings page. A secret's value is never
// put here: only whether it is set.
type settingField struct {
	Key, Doc, Allowed string
	Kind              config.Kind
	Enum              []string
	Value             string // "" for secrets, always
	Secret, SecretSet bool
	Err               string
	Pending           bool // stored value differs from the one in force
}

// settingGroup is the keys of one Field.Group.
type settingGroup struct {
	Name   string
	Fields []settingField
}

// settingsData is the settings page.
type settingsData struct {
	Groups   []settingGroup
	Presets  []config.Preset
	Provider string
	Pending  []string // keys saved but not yet in force
	Windows  WindowStatus
	Failed   bool
}

// settingsView builds the page from the stored configuration, with the
// submitted values and errors of a refused form when given.
func (s *Server) settingsView(ctx context.Context, submitted map[string]string, errs map[string]string) (settingsData, error) {
	stored, _, err := config.Load(ctx, s.opts.DB)
	if err != nil {
		return settingsData{}, err
	}
	s.opts.Control.ApplySettings()
	running := s.opts.Control.Config()
	pending := map[string]bool{}
	d := settingsData{Presets: config.Presets, Provider: stored.LLM.Provider, Failed: len(errs) > 0,
		Windows: s.opts.Control.Windows()}
	for _, k := range running.Diff(&stored) {
		pending[k] = true
		d.Pending = append(d.Pending, k)
	}
	for _, f := range config.Fields() {
		name := f.Group
		if name == "" {
			name = "general"
		}
		if len(d.Groups) == 0 || d.Groups[len(d.Groups)-1].Name != name {
			d.Groups = append(d.Groups, settingGroup{Name: name})
		}
		sf := settingField{Key: f.Key, Doc: f.Doc, Allowed: f.Allowed(), Kind: f.Kind, Enum: f.Enum, Secret: f.Secret,
			Err: errs[f.Key], Pending: pending[f.Key]}
		cur, _ := stored.Get(f.Key)
		if f.Secret {
			sf.SecretSet = cur != ""
		} else if v, ok := submitted[f.Key]; ok {
			sf.Value = v
		} else {
			sf.Value = cur
		}
		g := &d.Groups[len(d.Groups)-1]
		g.Fields = append(g.Fields, sf)
	}
	return d, nil
}

func (s *Server) settings(c *fiber.Ctx) error {
	d, err := s.settingsView(c.UserContext(), nil, nil)
	if err != nil {
		return err
	}
	return s.render(c, fiber.StatusOK, settingsPage(s.page(c, "Settings", "settings"), d))
}

// settingsSave saves the changed keys with the CLI's validation: all or
// nothing. A secret left empty keeps its value; "clear" empties it.
func (s *Server) settingsSave(c *fiber.Ctx) error {
	ctx := c.UserContext()
	stored, _, err := config.Load(ctx, s.opts.DB)
	if err != nil {
		return err
	}
	changes, submitted := map[string]string{}, map[string]string{}
	for _, f := range config.Fields() {
		v := c.FormValue(f.Key)
		if f.Secret {
			if c.FormValue("clear:"+f.Key) == "on" {
				changes[f.Key] = ""
			} else if v != "" {
				changes[f.Key] = v
			}
			continue
		}
		if !c.Request().PostArgs().Has(f.Key) {
			continue
		}
		submitted[f.Key] = v
		cur, _ := stored.Get(f.Key)
		if _, norm, err := config.Normalize(f.Key, v); err != nil || norm != cur {
			changes[f.Key] = v
		}
	}
	return s.saveConfig(c, changes, submitted, "/settings", func(d settingsData) error {
		return s.render(c, fiber.StatusUnprocessableEntity, settingsPage(s.page(c, "Settings", "settings"), d))
	})
}

// saveConfig saves changes; on refusal it re-renders through refused with
// each error next to its field, and nothing is saved.
func (s *Server) saveConfig(c *fiber.Ctx, changes, submitted map[string]string, next string, refused func(settingsData) error) error {
	if len(changes) == 0 {
		return s.done(c, next, "Nothing changed.")
	}
	_, err := config.Save(c.UserContext(), s.opts.DB, changes)
	var errs config.Errors
	if errors.As(err, &errs) {
		byKey := map[string]string{}
		for _, e := range errs {
			f, ok := config.Lookup(e.Key)
			if ok {
				byKey[f.Key] = e.Error()
			} else {
				byKey[e.Key] = e.Error()
			}
		}
		d, err := s.settingsView(c.UserContext(), submitted, byKey)
		if err != nil {
			return err
		}
		return refused(d)
	}
	if err != nil {
		return err
	}
	return s.done(c, next, s.savedMessage(sortedKeys(changes)))
}

// savedMessage applies saved keys to the running app and says which are
// in force and which wait for a restart.
func (s *Server) savedMessage(keys []string) string {
	s.opts.Control.ApplySettings()
	waiting := map[string]bool{}
	for _, k := range s.opts.Control.Status().Restart {
		waiting[k] = true
	}
	var now, later []string
	for _, k := range keys {
		if waiting[k] {
			later = append(later, k)
		} else {
			now = append(now, k)
		}
	}
	var parts []string
	if len(now) > 0 {
		parts = append(parts, "Saved and applied: "+strings.Join(now, ", ")+".")
	}
	if len(later) > 0 {
		parts = append(parts, "Saved, applies after a restart (use Restart MetaClaw on the settings page): "+strings.Join(later, ", ")+".")
	}
	return strings.Join(parts, " ")
}

// restart restarts MetaClaw (the Restart button).
func (s *Server) restart(c *fiber.Ctx) error {
	if err := s.opts.Control.Restart(); err != nil {
		return fmt.Errorf("restart: %w", err)
	}
	return s.render(c, fiber.StatusAccepted, restartingPage(s.page(c, "Restarting", "settings")))
}

// settingsPreset applies a provider preset: provider, base URL and model.
func (s *Server) settingsPreset(c *fiber.Ctx) error {
	p, ok := config.PresetByName(c.FormValue("preset"))
	if !ok {
		return fiber.NewError(fiber.StatusBadRequest, "unknown provider preset")
	}
	changes := map[string]string{"llm.provider": p.Name}
	if p.APIBase != "" {
		changes["llm.api_base"], changes["llm.model_id"] = p.APIBase, p.Model
	}
	return s.saveConfig(c, changes, nil, "/settings", func(d settingsData) error {
		return s.render(c, fiber.StatusUnprocessableEntity, settingsPage(s.page(c, "Settings", "settings"), d))
	})
}

// sortedKeys returns the canonical keys of changes in the order of
// config.Fields.
func sortedKeys(changes map[string]string) []string {
	var out []string
	for _, f := range config.Fields() {
		if _, ok := changes[f.Key]; ok {
			out = append(out, f.Key)
		}
	}
	return out
}
