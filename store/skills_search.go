package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// SkillHit is a search result: a skill and its BM25 relevance (higher is
// better).
type SkillHit struct {
	Skill
	Score float64
}

// SearchSkills ranks enabled skills for a free-text query with BM25 over
// their name, description, tags and body (weighted in that order). Words
// are matched with Porter stemming; any word may match.
func (db *DB) SearchSkills(ctx context.Context, query string, limit int) ([]SkillHit, error) {
	match := FTSQuery(query)
	if match == "" {
		return nil, nil
	}
	// Rank inside the index first and join only the best few: joining
	// every matching row before sorting costs more than the ranking.
	rows, err := db.sql.QueryContext(ctx, `WITH best AS (
			SELECT rowid AS id, -bm25(skills_fts, 6.0, 4.0, 3.0, 1.0) AS rank FROM skills_fts
			WHERE skills_fts MATCH ? ORDER BY rank DESC LIMIT ?)
		SELECT `+skillCols+`, best.rank FROM best JOIN skills s ON s.id = best.id
		JOIN skill_versions v ON v.skill_id = s.id AND v.version = s.current_version
		WHERE s.enabled = 1 ORDER BY best.rank DESC LIMIT ?`, match, limit*2+8, limit)
	if err != nil {
		return nil, fmt.Errorf("search skills: %w", err)
	}
	defer rows.Close()
	var out []SkillHit
	for rows.Next() {
		var h SkillHit
		var tags, asks, asksIn string
		var created, updated int64
		if err := rows.Scan(&h.ID, &h.Name, &h.Description, &h.Category, &tags, &h.Body, &h.Version, &h.Enabled,
			&h.Retired, &h.Source, &created, &updated, &asks, &asksIn, &h.Score); err != nil {
			return nil, fmt.Errorf("search skills: %w", err)
		}
		h.Tags = splitTags(tags)
		if asks != "[]" {
			_ = json.Unmarshal([]byte(asks), &h.Asks)
		}
		if asksIn != "{}" {
			_ = json.Unmarshal([]byte(asksIn), &h.AsksIn)
		}
		h.CreatedAt, h.UpdatedAt = fromMillis(created), fromMillis(updated)
		out = append(out, h)
	}
	return out, rows.Err()
}

func splitTags(js string) []string {
	js = strings.Trim(js, "[]")
	if js == "" {
		return nil
	}
	var out []string
	for _, t := range strings.Split(js, ",") {
		if s, err := strconv.Unquote(strings.TrimSpace(t)); err == nil {
			out = append(out, s)
		}
	}
	return out
}

// FTSQuery turns free text into a safe FTS5 query: its distinct words
// (letters and digits, at least two characters, stop words removed), each
// quoted, joined with OR. It returns "" when no word is left.
func FTSQuery(text string) string {
	seen := map[string]bool{}
	var terms []string
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if len([]rune(w)) < 2 || stopWords[w] || seen[w] {
			continue
		}
		seen[w] = true
		terms = append(terms, `"`+w+`"`)
		if len(terms) == 64 {
			break
		}
	}
	return strings.Join(terms, " OR ")
}

// stopWords are common words that carry no topic: English, and the
// function words of the other languages requests come in.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(englishStopWords) {
		m[w] = true
	}
	for _, l := range functionWords {
		for _, w := range strings.Fields(l.words) {
			m[w] = true
		}
	}
	return m
}()

// englishStopWords are English's function words and the words every
// request uses.
const englishStopWords = `a an the and or but if then else of to in on at by for with from into onto
	is are was were be been being am do does did doing have has had having i me my mine we us our you your
	he him his she her it its they them their this that these those there here what which who whom whose
	when where why how all any both each few more most other some such no nor not only own same so than too
	very can will just should could would may might must shall now also about above after again against
	before below between down during further once out over under until up while as s t don isn aren wasn
	weren hasn haven hadn doesn didn won wouldn shan shouldn couldn mustn let lets please thanks thank hi
	hello hey ok okay yes yeah get got make want need like im ive id youre its`

// functionWords are the function words of Spanish, Portuguese, Italian,
// French and German (lower case, with their accents), by language code.
var functionWords = []struct{ lang, words string }{
	{"es", `
		el la los las un una unos unas y de del al en por para con sobre que qué como cómo es está están estoy
		ser fue muy más pero mi mis tu tus su sus yo tú él ella nosotros ustedes le les lo se me te nos ya hoy este
		esta esto estos estas ese esa eso hay tengo tiene puedo puedes quiero cuando donde dónde porque también`},
	{"pt", `
		as um uns umas ou do da dos das no na nos nas com sem é são estou foi muito mas meu minha meus minhas seu
		sua você ele nós eles elas lhe já hoje isto esse essa isso tem tenho posso pode quero quando onde porque
		também foste`},
	{"it", `
		il gli di della dei delle nel nella per sono sta sto essere molto più ma mio mia miei tuo tua lui lei noi
		voi loro ti si già oggi questo questa quello quella ho hai ha posso puoi voglio quando dove perché anche
		non`},
	{"fr", `
		les une des et au aux dans avec sans sur qui comme est sont suis être très plus mais mon ma mes ton ta tes
		sa ses je il elle vous ils elles lui leur déjà aujourd hui ce cette ces cet avez peux voudrais quand où
		aussi ne pas`},
	{"de", `
		der das den dem des ein eine einer eines einem einen und oder von zu im am an auf für ohne über dass wie ist
		sind sein sehr mehr aber mein meine dein deine seine ich er sie es wir ihr mich mir dich sich schon
		heute dieser diese dieses habe hast kann kannst möchte nicht auch noch nur wenn wo warum`},
}

// MetaSkillGeneration is the meta key of the skill generation
// (SkillGeneration), by which every process tells that the library changed.
const MetaSkillGeneration = "skill_generation"

// SkillGeneration returns the current skill generation (0 before any
// evolution).
func (db *DB) SkillGeneration(ctx context.Context) (int, error) {
	return metaInt(ctx, db.sql, MetaSkillGeneration)
}

type queryRower interface {
	QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row
}

func metaInt(ctx context.Context, q queryRower, key string) (int, error) {
	v, err := metaValue(ctx, q, key)
	if err != nil || v == "" {
		return 0, err
	}
	return strconv.Atoi(v)
}

// SkillChange is one operation of an evolution.
type SkillChange struct {
	Op    string // add, update, retire
	Input SkillInput
}

// Evolution is one evolver run, as recorded in the log.
type Evolution struct {
	ID         int64
	Generation int
	SessionID  string
	Status     string // applied, rejected, empty
	Ops        string // JSON of the operations
	Error      string
	// StaleSamples is how many waiting training samples the evolution
	// made stale: those whose prompt it changed.
	StaleSamples int
	CreatedAt    int64
}

// EvolutionResult is what ApplyEvolution did.
type EvolutionResult struct {
	Generation int // the skill generation after the evolution
	// Changed are the changes that changed a skill (a new version, a
	// retirement, a retired skill back); when none did, the generation
	// stayed and the evolution was logged as empty.
	Changed []SkillChange
}

// noChangeNote is the error text of an evolution whose operations changed
// nothing.
const noChangeNote = "the proposed operations change nothing: the skills already read so"

// ApplyEvolution applies an evolution's changes, bumps the skill generation
// once and logs the evolution, all in one transaction. Each change's
// version is stamped with the new generation. Operations that change
// nothing (an update or add identical to the current version, a retire of
// a retired skill) do not count: when no operation changes anything the
// generation stays and the evolution is logged as empty, so that waiting
// training samples are not made stale for nothing.
func (db *DB) ApplyEvolution(ctx context.Context, changes []SkillChange, evo Evolution) (EvolutionResult, error) {
	defer db.skillsChanged()
	var res EvolutionResult
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		cur, err := metaInt(ctx, tx, MetaSkillGeneration)
		if err != nil {
			return err
		}
		res = EvolutionResult{Generation: cur + 1}
		for _, ch := range changes {
			ch.Input.Generation = cur + 1
			changed, err := applyChange(ctx, tx, ch)
			if err != nil {
				return err
			}
			if changed {
				res.Changed = append(res.Changed, ch)
			}
		}
		if len(res.Changed) == 0 {
			res.Generation = cur
			evo.Generation, evo.Status, evo.Error = cur, "empty", noChangeNote
			return logEvolution(ctx, tx, evo)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES(?, ?)
			ON CONFLICT(key) DO UPDATE SET value = excluded.value`, MetaSkillGeneration, strconv.Itoa(res.Generation)); err != nil {
			return fmt.Errorf("bump generation: %w", err)
		}
		evo.Generation, evo.Status = res.Generation, "applied"
		return logEvolution(ctx, tx, evo)
	})
	return res, err
}

// applyChange applies one operation and reports whether it changed
// anything.
func applyChange(ctx context.Context, tx *sql.Tx, ch SkillChange) (bool, error) {
	switch ch.Op {
	case "add", "update":
		changed, err := putSkill(ctx, tx, ch.Input)
		return changed, err
	case "retire":
		var retired bool
		err := tx.QueryRowContext(ctx, "SELECT retired FROM skills WHERE name = ?", ch.Input.Name).Scan(&retired)
		if errors.Is(err, sql.ErrNoRows) {
			return false, fmt.Errorf("retire skill %s: %w", ch.Input.Name, ErrNotFound)
		}
		if err != nil || retired {
			return false, err
		}
		res, err := tx.ExecContext(ctx, "UPDATE skills SET enabled = 0, retired = 1, updated_at = "+nextRev+" WHERE name = ?", nowMillis(), ch.Input.Name)
		return true, affected(res, err, "retire skill "+ch.Input.Name)
	}
	return false, fmt.Errorf("unknown skill operation %q", ch.Op)
}

// LogEvolution records an evolution that changed nothing (rejected or
// empty).
func (db *DB) LogEvolution(ctx context.Context, evo Evolution) error {
	return db.inTx(ctx, func(tx *sql.Tx) error { return logEvolution(ctx, tx, evo) })
}

func logEvolution(ctx context.Context, tx *sql.Tx, evo Evolution) error {
	if evo.Ops == "" {
		evo.Ops = "[]"
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO evolutions(generation, session_id, status, ops, error, created_at) VALUES(?,?,?,?,?,?)`,
		evo.Generation, evo.SessionID, evo.Status, evo.Ops, evo.Error, nowMillis())
	if err != nil {
		return fmt.Errorf("log evolution: %w", err)
	}
	return nil
}

// Evolutions returns the most recent evolutions, newest first.
func (db *DB) Evolutions(ctx context.Context, limit int) ([]Evolution, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT id, generation, session_id, status, ops, error, stale_samples, created_at
		FROM evolutions ORDER BY id DESC LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("list evolutions: %w", err)
	}
	defer rows.Close()
	var out []Evolution
	for rows.Next() {
		var e Evolution
		if err := rows.Scan(&e.ID, &e.Generation, &e.SessionID, &e.Status, &e.Ops, &e.Error, &e.StaleSamples, &e.CreatedAt); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// Meta returns a value from the meta table ("" when unset).
func (db *DB) Meta(ctx context.Context, key string) (string, error) {
	return metaValue(ctx, db.sql, key)
}

func metaValue(ctx context.Context, q queryRower, key string) (string, error) {
	var v string
	err := q.QueryRowContext(ctx, "SELECT value FROM meta WHERE key = ?", key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read %s: %w", key, err)
	}
	return v, nil
}

// SetMeta sets a value in the meta table.
func (db *DB) SetMeta(ctx context.Context, key, value string) error {
	_, err := db.sql.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES(?, ?)
		ON CONFLICT(key) DO UPDATE SET value = excluded.value`, key, value)
	if err != nil {
		return fmt.Errorf("write %s: %w", key, err)
	}
	return nil
}

// SkillsStamp is a summary of the skills table that changes whenever a
// skill is added, changed, enabled, disabled, retired or deleted; readers
// compare it to know when to reload. Reading it costs two index lookups,
// not a scan.
type SkillsStamp struct {
	MaxRev  int64 // the greatest revision (updated_at)
	MaxID   int64
	Deleted int64 // skills deleted in this database's life
}

func (s SkillsStamp) String() string { return fmt.Sprintf("%d/%d/%d", s.MaxRev, s.MaxID, s.Deleted) }

// SkillsStamp reads the stamp.
func (db *DB) SkillsStamp(ctx context.Context) (SkillsStamp, error) {
	var s SkillsStamp
	err := db.sql.QueryRowContext(ctx, `SELECT (SELECT coalesce(max(updated_at), 0) FROM skills), (SELECT coalesce(max(id), 0) FROM skills),
		coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'skills_deleted'), 0)`).Scan(&s.MaxRev, &s.MaxID, &s.Deleted)
	if err != nil {
		return SkillsStamp{}, fmt.Errorf("skills stamp: %w", err)
	}
	return s, nil
}

// IsStopWord reports whether w (lower case) is a common word that carries
// no topic, as FTSQuery drops them.
func IsStopWord(w string) bool { return stopWords[w] }

// languageMarkers are, for each language Language tells apart, its
// commonest short words beyond its function words above: the articles,
// pronouns and verbs that tell Portuguese from Spanish and Italian from
// both. They only tell languages apart; they are not stop words.
var languageMarkers = map[string]string{
	"es": "el la los las de que en para como qué por con no una es mi me lo hay",
	"pt": "o os e de que em para como não uma é meu eu você faço obrigado está isso",
	"it": "il lo la le gli un e di che in per come non una è mi io ci sono ho della",
	"fr": "le les de que en pour comme pas un une est je tu à mon ce cette c j qu",
	"de": "der die das und ist ich nicht es was wie mit zu bitte kann",
}

// languageWords maps each word to the languages it counts for, by index:
// 0 for English (its stop words), i+1 for functionWords[i] (its function
// words and markers).
var languageWords = func() map[string][]int {
	m := map[string][]int{}
	add := func(lang int, words string) {
		for _, w := range strings.Fields(words) {
			if !slices.Contains(m[w], lang) {
				m[w] = append(m[w], lang)
			}
		}
	}
	add(0, englishStopWords)
	for i, l := range functionWords {
		add(i+1, l.words)
		add(i+1, languageMarkers[l.lang])
	}
	return m
}()

// Language says which language text is written in, by counting its
// function words: "en" for English, a language code for Spanish (es),
// Portuguese (pt), Italian (it), French (fr) or German (de), or "" when
// it cannot tell (too few such words, or as many of English's). Another
// language counts only when it has at least two of its words and more
// than English has; a tie between two others goes to the one with more
// words that are only its own. It reads the first 2 KB.
func Language(text string) string {
	if len(text) > 2048 {
		text = text[:2048]
	}
	var count, own [6]int // as languageWords: English, then functionWords
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) }) {
		langs := languageWords[w]
		for _, i := range langs {
			count[i]++
			if len(langs) == 1 {
				own[i]++
			}
		}
	}
	best := 1
	for i := 2; i < len(count); i++ {
		if count[i] > count[best] || count[i] == count[best] && own[i] > own[best] {
			best = i
		}
	}
	switch {
	case count[best] >= 2 && count[best] > count[0]:
		return functionWords[best-1].lang
	case count[0] > 0 && count[0] >= count[best]:
		return "en"
	}
	return ""
}

// MetaLanguagesSeen is the meta key of the requests seen in each language
// other than English (AddLanguagesSeen): a JSON object from a language's
// code to a count.
const MetaLanguagesSeen = "languages_seen"

// AddLanguagesSeen adds counts of requests by language to those stored.
func (db *DB) AddLanguagesSeen(ctx context.Context, counts map[string]int) error {
	return db.inTx(ctx, func(tx *sql.Tx) error {
		seen, err := languagesSeen(ctx, tx)
		if err != nil {
			return err
		}
		for l, n := range counts {
			if validLang(l) && n > 0 {
				seen[l] += n
			}
		}
		b, _ := json.Marshal(seen)
		if _, err := tx.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES(?, ?)
			ON CONFLICT(key) DO UPDATE SET value = excluded.value`, MetaLanguagesSeen, string(b)); err != nil {
			return fmt.Errorf("write %s: %w", MetaLanguagesSeen, err)
		}
		return nil
	})
}

// LanguagesSeen returns how many requests were seen in each language
// other than English (AddLanguagesSeen).
func (db *DB) LanguagesSeen(ctx context.Context) (map[string]int, error) {
	return languagesSeen(ctx, db.sql)
}

func languagesSeen(ctx context.Context, q queryRower) (map[string]int, error) {
	v, err := metaValue(ctx, q, MetaLanguagesSeen)
	if err != nil {
		return nil, err
	}
	seen := map[string]int{}
	if v != "" {
		_ = json.Unmarshal([]byte(v), &seen)
	}
	return seen, nil
}
