// Command iconsgen draws MetaClaw's tray and app icons (one per state) into
// assets/icons. Run through `go generate ./assets`.
package main

import (
	"image"
	"image/color"
	"image/png"
	"log"
	"math"
	"os"
	"path/filepath"
)

var states = map[string]color.RGBA{
	"learning":  {0x1f, 0x8a, 0x70, 0xff}, // green-teal
	"paused":    {0x80, 0x80, 0x88, 0xff}, // grey
	"training":  {0x2f, 0x6f, 0xd6, 0xff}, // blue
	"attention": {0xd9, 0x6c, 0x1a, 0xff}, // orange
}

func main() {
	out := "icons"
	if len(os.Args) > 1 {
		out = os.Args[1]
	}
	for name, c := range states {
		for _, size := range []int{64, 256} {
			img := draw(size, c)
			file := filepath.Join(out, name+"-"+itoa(size)+".png")
			f, err := os.Create(file)
			if err != nil {
				log.Fatal(err)
			}
			if err := png.Encode(f, img); err != nil {
				log.Fatal(err)
			}
			f.Close()
		}
	}
}

func itoa(n int) string {
	if n == 64 {
		return "64"
	}
	return "256"
}

// draw paints a filled disc with three white claw marks.
func draw(size int, c color.RGBA) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	s := float64(size)
	r := s/2 - s/32
	for y := 0; y < size; y++ {
		for x := 0; x < size; x++ {
			dx, dy := float64(x)+0.5-s/2, float64(y)+0.5-s/2
			d := math.Hypot(dx, dy)
			a := math.Max(0, math.Min(1, r-d+0.5))
			if a == 0 {
				continue
			}
			col := c
			if claw(dx/s, dy/s) {
				col = color.RGBA{0xff, 0xff, 0xff, 0xff}
			}
			img.SetNRGBA(x, y, color.NRGBA{col.R, col.G, col.B, uint8(a * 255)})
		}
	}
	return img
}

// claw reports whether a point (in units of the icon size, centred) lies on
// one of three slanted strokes.
func claw(x, y float64) bool {
	for _, off := range []float64{-0.17, 0, 0.17} {
		// a stroke from (off-0.08, -0.28) to (off+0.08, 0.28)
		t := (y + 0.28) / 0.56
		if t < 0 || t > 1 {
			continue
		}
		cx := off - 0.08 + 0.16*t
		w := 0.035 * math.Sin(math.Pi*t)
		if math.Abs(x-cx) < w+0.005 {
			return true
		}
	}
	return false
}
