package web

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
)

func skillURL(name string) string { return "/skills/" + url.PathEscape(name) }

// sortedLanguages are the languages of a skill's asks in other languages,
// in order of their codes.
func sortedLanguages(in map[string][]string) []string {
	out := make([]string, 0, len(in))
	for l := range in {
		out = append(out, l)
	}
	slices.Sort(out)
	return out
}

// skillListData is the skills page: the skills shown, the categories to
// filter by, and each skill's efficacy.
type skillListData struct {
	Query, Category string
	Categories      []string
	Skills          []store.Skill
	Efficacy        map[string]store.Efficacy
	Factors         map[string]float64  // efficacy's ranking factor by skill; missing: none
	Folder          *SkillsFolderStatus // the skills folder's skipped and re-filed files; nil: none kept
	Languages       []languageRow       // the languages besides English the person writes in
	AskLanguages    string              // skills.ask_languages
}

// languageRow is one language besides English the person has written
// requests in, or asks are configured in.
type languageRow struct {
	Code, Name string
	Requests   int  // requests seen in it
	Wanted     bool // skills' asks are written in it (config.WantedAskLanguages)
	Asked      int  // enabled skills that have asks in it
	Skills     int  // enabled skills
}

// skillLanguages lists the languages the person writes in besides
// English, or has asks written in, with how far the asks in each are.
func (s *Server) skillLanguages(c *fiber.Ctx, all []store.Skill) ([]languageRow, string, error) {
	ctx := c.UserContext()
	seen, err := s.opts.DB.LanguagesSeen(ctx)
	if err != nil {
		return nil, "", err
	}
	cfg, _, err := config.Load(ctx, s.opts.DB)
	if err != nil {
		return nil, "", err
	}
	wanted := config.WantedAskLanguages(cfg.Skills.AskLanguages, seen)
	var rows []languageRow
	for _, l := range config.AskLanguages {
		row := languageRow{Code: l, Name: config.LanguageName(l), Requests: seen[l], Wanted: slices.Contains(wanted, l)}
		for _, sk := range all {
			if sk.Enabled {
				row.Skills++
				if len(sk.AsksIn[l]) > 0 {
					row.Asked++
				}
			}
		}
		if row.Requests > 0 || row.Wanted || row.Asked > 0 {
			rows = append(rows, row)
		}
	}
	return rows, cfg.Skills.AskLanguages, nil
}

func (s *Server) skillList(c *fiber.Ctx) error {
	ctx := c.UserContext()
	d := skillListData{Query: strings.TrimSpace(c.Query("q")), Category: c.Query("category"), Folder: s.opts.Control.SkillsFolder()}
	all, err := s.opts.DB.Skills(ctx, true)
	if err != nil {
		return err
	}
	d.Categories = categoriesOf(all, s.opts.SkillCategories)
	if d.Languages, d.AskLanguages, err = s.skillLanguages(c, all); err != nil {
		return err
	}
	list := all
	if d.Query != "" {
		hits, err := s.opts.DB.SearchSkills(ctx, d.Query, 100)
		if err != nil {
			return err
		}
		list = list[:0:0]
		for _, h := range hits {
			list = append(list, h.Skill)
		}
	}
	for _, sk := range list {
		if d.Category == "" || sk.Category == d.Category {
			d.Skills = append(d.Skills, sk)
		}
	}
	if d.Efficacy, err = s.opts.DB.SkillEfficacy(ctx); err != nil {
		return err
	}
	d.Factors = map[string]float64{}
	for name, e := range d.Efficacy {
		d.Factors[name] = s.efficacyFactor(e)
	}
	return s.render(c, fiber.StatusOK, skillsPage(s.page(c, "Skills", "skills"), d))
}

// categoriesOf merges the known categories with those skills use, sorted.
func categoriesOf(skills []store.Skill, known []string) []string {
	set := map[string]bool{}
	for _, k := range known {
		set[k] = true
	}
	for _, sk := range skills {
		if sk.Category != "" {
			set[sk.Category] = true
		}
	}
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// skillViewData is one skill's page.
type skillViewData struct {
	Skill    store.Skill
	Versions []store.SkillVersion // newest first
	Efficacy store.Efficacy
	HasEff   bool
	Factor   float64
}

func (s *Server) skillView(c *fiber.Ctx) error {
	ctx := c.UserContext()
	name := c.Params("name")
	sk, err := s.opts.DB.Skill(ctx, name)
	if err != nil {
		return err
	}
	d := skillViewData{Skill: sk}
	if d.Versions, err = s.opts.DB.SkillVersions(ctx, name); err != nil {
		return err
	}
	slices.Reverse(d.Versions)
	eff, err := s.opts.DB.SkillEfficacy(ctx)
	if err != nil {
		return err
	}
	d.Efficacy, d.HasEff = eff[name]
	d.Factor = s.efficacyFactor(d.Efficacy)
	return s.render(c, fiber.StatusOK, skillPage(s.page(c, sk.Name, "skills"), d))
}

// skillForm is the create/edit form with its values and errors.
type skillForm struct {
	New                                     bool
	Name, Description, Category, Tags, Body string
	Categories                              []string
	Errors                                  map[string]string // by field; "" = the form
}

func (s *Server) skillNew(c *fiber.Ctx) error {
	f := skillForm{New: true, Categories: s.opts.SkillCategories}
	return s.render(c, fiber.StatusOK, skillFormPage(s.page(c, "New skill", "skills"), f))
}

func (s *Server) skillEdit(c *fiber.Ctx) error {
	sk, err := s.opts.DB.Skill(c.UserContext(), c.Params("name"))
	if err != nil {
		return err
	}
	f := skillForm{Name: sk.Name, Description: sk.Description, Category: sk.Category,
		Tags: strings.Join(sk.Tags, ", "), Body: sk.Body, Categories: s.opts.SkillCategories}
	return s.render(c, fiber.StatusOK, skillFormPage(s.page(c, "Edit "+sk.Name, "skills"), f))
}

func (s *Server) skillCreate(c *fiber.Ctx) error {
	f := readSkillForm(c, s.opts.SkillCategories)
	f.New = true
	if _, err := s.opts.DB.Skill(c.UserContext(), f.Name); err == nil {
		f.Errors = map[string]string{"name": fmt.Sprintf("a skill named %q exists already: edit it instead", f.Name)}
		return s.render(c, fiber.StatusUnprocessableEntity, skillFormPage(s.page(c, "New skill", "skills"), f))
	}
	return s.saveSkill(c, f, "Skill "+f.Name+" created.")
}

func (s *Server) skillUpdate(c *fiber.Ctx) error {
	f := readSkillForm(c, s.opts.SkillCategories)
	f.Name = c.Params("name")
	if _, err := s.opts.DB.Skill(c.UserContext(), f.Name); err != nil {
		return err
	}
	return s.saveSkill(c, f, "Saved a new version of "+f.Name+".")
}

// saveSkill validates the form as the CLI's import does and stores it as a
// new skill or version; a refused form comes back with its errors.
func (s *Server) saveSkill(c *fiber.Ctx, f skillForm, msg string) error {
	in := store.SkillInput{Name: f.Name, Description: f.Description, Category: f.Category, Tags: splitList(f.Tags),
		Body: f.Body, Source: "web", Note: "edited on the web page"}
	if f.New {
		in.Note = "created on the web page"
	}
	if err := s.opts.ValidateSkill(in); err != nil {
		f.Errors = map[string]string{skillErrorField(err.Error()): err.Error()}
		title := "Edit " + f.Name
		if f.New {
			title = "New skill"
		}
		return s.render(c, fiber.StatusUnprocessableEntity, skillFormPage(s.page(c, title, "skills"), f))
	}
	_, changed, err := s.opts.DB.PutSkill(c.UserContext(), in)
	if err != nil {
		return err
	}
	if !changed {
		msg = "Nothing changed: the content is the same as the current version."
	}
	return s.done(c, skillURL(f.Name), msg)
}

func readSkillForm(c *fiber.Ctx, categories []string) skillForm {
	return skillForm{Name: strings.TrimSpace(c.FormValue("name")), Description: strings.TrimSpace(c.FormValue("description")),
		Category: strings.TrimSpace(c.FormValue("category")), Tags: c.FormValue("tags"),
		Body: strings.TrimSpace(strings.ReplaceAll(c.FormValue("body"), "\r\n", "\n")), Categories: categories}
}

// skillErrorField names the form field a validation message is about.
func skillErrorField(msg string) string {
	for _, f := range []string{"name", "description", "category", "body"} {
		if strings.HasPrefix(msg, f) {
			return f
		}
	}
	if strings.Contains(msg, "tags") {
		return "tags"
	}
	return ""
}

// splitList splits a comma-separated list, lower-cased, without blanks or
// repeats.
func splitList(s string) []string {
	var out []string
	for _, t := range strings.Split(s, ",") {
		t = strings.ToLower(strings.TrimSpace(t))
		if t != "" && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// skillAction enables, disables, reverts or deletes a skill.
func (s *Server) skillAction(c *fiber.Ctx) error {
	ctx, name := c.UserContext(), c.Params("name")
	switch c.Params("action") {
	case "enable", "disable":
		on := c.Params("action") == "enable"
		if err := s.opts.DB.SetSkillEnabled(ctx, name, on); err != nil {
			return err
		}
		return s.done(c, skillURL(name), fmt.Sprintf("Skill %s %sd.", name, c.Params("action")))
	case "revert":
		v, err := strconv.Atoi(c.FormValue("version"))
		if err != nil {
			return fiber.NewError(fiber.StatusBadRequest, "revert: no version given")
		}
		if _, err := s.opts.DB.RevertSkill(ctx, name, v); err != nil {
			return err
		}
		return s.done(c, skillURL(name), fmt.Sprintf("Reverted %s to the content of version %d (as a new version).", name, v))
	case "delete":
		if err := s.opts.DB.DeleteSkill(ctx, name); err != nil {
			return err
		}
		return s.done(c, "/skills", "Skill "+name+" deleted with all its versions.")
	}
	return fiber.ErrNotFound
}

var kebabRE = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// basicSkillCheck is the validation used when app passes none.
func basicSkillCheck(in store.SkillInput) error {
	switch {
	case in.Name == "":
		return errors.New("name is missing")
	case !kebabRE.MatchString(in.Name) || len(in.Name) > 64:
		return fmt.Errorf("name %q must be kebab-case (a-z, 0-9, single hyphens), at most 64 characters", in.Name)
	case in.Description == "":
		return errors.New("description is missing: say when to use the skill")
	case in.Body == "":
		return errors.New("body is empty")
	}
	return nil
}

// fmtMean formats a mean score, "–" when there is none.
func fmtMean(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// factorText shows an efficacy ranking factor, "–" for none (1 or unknown).
func factorText(f float64) string {
	if f == 0 || f == 1 {
		return "–"
	}
	return "×" + strconv.FormatFloat(f, 'f', 2, 64)
}

func skillFormAction(f skillForm) string {
	if f.New {
		return "/skills"
	}
	return skillURL(f.Name)
}
