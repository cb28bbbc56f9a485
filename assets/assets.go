// Package assets holds MetaClaw's embedded files: the tray and app icons
// (one per state) and, later, the web page's CSS and JavaScript. It imports
// nothing from the project; anything may import it.
package assets

import (
	"embed"
	"fmt"
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
