// Command iconsgen draws MetaClaw's icons. Through `go generate ./assets` it
// writes the tray icons, one per state and size, into assets/icons (they are
// embedded). With -app DIR it writes the application icon for the
// installers instead (build/): metaclaw-<size>.png from 16 to 1024 pixels
// and metaclaw.ico; those are build outputs, not committed.
package main

import (
	"bytes"
	"encoding/binary"
	"flag"
	"image"
	"image/color"
	"image/png"
	"log"
	"math"
	"os"
	"path/filepath"
	"strconv"
)

var states = map[string]color.RGBA{
	"learning":  {0x1f, 0x8a, 0x70, 0xff}, // green-teal
	"paused":    {0x80, 0x80, 0x88, 0xff}, // grey
	"training":  {0x2f, 0x6f, 0xd6, 0xff}, // blue
	"attention": {0xd9, 0x6c, 0x1a, 0xff}, // orange
}

// traySizes are the embedded sizes of each state's icon: 16 and 32 for
// Windows' notification area, 64 for Linux and macOS, 256 for the web page.
var traySizes = []int{16, 32, 64, 256}

// appSizes are the application icon's sizes: the hicolor theme's, and up
// to 1024 for a macOS iconset.
var appSizes = []int{16, 22, 24, 32, 48, 64, 128, 256, 512, 1024}

// icoSizes go into metaclaw.ico (installer, shortcuts, Add/Remove Programs).
var icoSizes = []int{16, 24, 32, 48, 64, 256}

func main() {
	app := flag.String("app", "", "write the application icons into this directory instead")
	flag.Parse()
	var err error
	if *app != "" {
		err = writeApp(*app)
	} else {
		out := "icons"
		if flag.NArg() > 0 {
			out = flag.Arg(0)
		}
		err = writeTray(out)
	}
	if err != nil {
		log.Fatal(err)
	}
}

func writeTray(dir string) error {
	for name, c := range states {
		for _, size := range traySizes {
			if err := writePNG(filepath.Join(dir, name+"-"+strconv.Itoa(size)+".png"), render(size, c)); err != nil {
				return err
			}
		}
	}
	return nil
}

func writeApp(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	c := states["learning"]
	for _, size := range appSizes {
		if err := writePNG(filepath.Join(dir, "metaclaw-"+strconv.Itoa(size)+".png"), render(size, c)); err != nil {
			return err
		}
	}
	var pngs [][]byte
	for _, size := range icoSizes {
		var b bytes.Buffer
		if err := png.Encode(&b, render(size, c)); err != nil {
			return err
		}
		pngs = append(pngs, b.Bytes())
	}
	return os.WriteFile(filepath.Join(dir, "metaclaw.ico"), ico(icoSizes, pngs), 0o644)
}

func writePNG(file string, img image.Image) error {
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ico packs PNG images into a Windows .ico file (PNG entries, read by
// Windows Vista and later and by NSIS).
func ico(sizes []int, pngs [][]byte) []byte {
	var b bytes.Buffer
	le := binary.LittleEndian
	_ = binary.Write(&b, le, [3]uint16{0, 1, uint16(len(pngs))})
	offset := 6 + 16*len(pngs)
	for i, p := range pngs {
		dim := uint8(sizes[i] % 256) // 0 means 256
		_ = binary.Write(&b, le, [4]uint8{dim, dim, 0, 0})
		_ = binary.Write(&b, le, [2]uint16{1, 32})
		_ = binary.Write(&b, le, [2]uint32{uint32(len(p)), uint32(offset)})
		offset += len(p)
	}
	for _, p := range pngs {
		b.Write(p)
	}
	return b.Bytes()
}

// render draws the icon at a size. Below 64 pixels it draws 8 times larger
// and scales down, so the claw marks stay visible.
func render(size int, c color.RGBA) *image.NRGBA {
	if size >= 64 {
		return draw(size, c)
	}
	const k = 8
	big := draw(size*k, c)
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	for y := 0; y < size; y++ {
		for x := 0; x < size; x++ {
			var r, g, bl, a float64
			for j := 0; j < k; j++ {
				for i := 0; i < k; i++ {
					p := big.NRGBAAt(x*k+i, y*k+j)
					w := float64(p.A)
					r, g, bl, a = r+float64(p.R)*w, g+float64(p.G)*w, bl+float64(p.B)*w, a+w
				}
			}
			if a == 0 {
				continue
			}
			img.SetNRGBA(x, y, color.NRGBA{uint8(r/a + 0.5), uint8(g/a + 0.5), uint8(bl/a + 0.5), uint8(a/(k*k) + 0.5)})
		}
	}
	return img
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
