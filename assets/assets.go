// Package assets holds MetaClaw's embedded files: the tray and app icons
// (one per state), the starter skill bank, and the web page's CSS and
// JavaScript. It imports
// nothing from the project; anything may import it.
package assets

import (
	"embed"
	"fmt"
	"io/fs"
)

//go:generate go run ./internal/iconsgen icons

//go:embed icons/*.png
var icons embed.FS

// Icon states.
const (
	StateLearning  = "learning"
	StatePaused    = "paused"
	StateTraining  = "training"
	StateAttention = "attention"
)

// Icon returns the PNG icon of a state at 64 or 256 pixels.
func Icon(state string, size int) ([]byte, error) {
	b, err := icons.ReadFile(fmt.Sprintf("icons/%s-%d.png", state, size))
	if err != nil {
		return nil, fmt.Errorf("icon %s/%d: %w", state, size, err)
	}
	return b, nil
}

//go:embed skills
var skills embed.FS

// Skills returns the starter skill bank: one directory per skill holding
// its SKILL.md.
func Skills() fs.FS {
	sub, err := fs.Sub(skills, "skills")
	if err != nil {
		panic(err) // the embedded tree always has this directory
	}
	return sub
}

//go:embed web
var web embed.FS

// Web returns the web page's static files: style.css and app.js.
func Web() fs.FS {
	sub, err := fs.Sub(web, "web")
	if err != nil {
		panic(err) // the embedded tree always has this directory
	}
	return sub
}
