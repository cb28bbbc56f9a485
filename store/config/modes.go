package config

// The values of the mode setting (Config.Mode): the one place that names
// them; every package compares against these.
const (
	// ModeSkillsOnly injects skills and memories and trains nothing.
	ModeSkillsOnly = "skills_only"
	// ModeRL trains as soon as a batch is full.
	ModeRL = "rl"
	// ModeMadmax trains only inside training windows.
	ModeMadmax = "madmax"
)
