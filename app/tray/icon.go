package tray

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	_ "image/png" // icon sizes for the .ico directory
	"runtime"

	"github.com/metaclaw/metaclaw/assets"
)

// iconData returns a state's icon as the platform's tray wants it.
func iconData(state string) ([]byte, error) { return iconFor(state, runtime.GOOS) }

// iconFor returns a state's icon for an OS: a .ico holding the 16, 32 and
// 64 pixel PNGs on Windows (systray loads it with LoadImage), the 64 pixel
// PNG elsewhere.
func iconFor(state, goos string) ([]byte, error) {
	if goos != "windows" {
		return assets.Icon(state, 64)
	}
	var pngs [][]byte
	for _, size := range []int{16, 32, 64} {
		b, err := assets.Icon(state, size)
		if err != nil {
			return nil, err
		}
		pngs = append(pngs, b)
	}
	return ico(pngs)
}

// ico packs PNG images into a .ico file (PNG entries, which Windows reads
// since Vista).
func ico(pngs [][]byte) ([]byte, error) {
	var b bytes.Buffer
	le := binary.LittleEndian
	_ = binary.Write(&b, le, [3]uint16{0, 1, uint16(len(pngs))}) // reserved, type icon, count
	offset := 6 + 16*len(pngs)
	for _, p := range pngs {
		cfg, _, err := image.DecodeConfig(bytes.NewReader(p))
		if err != nil {
			return nil, fmt.Errorf("icon: %w", err)
		}
		if cfg.Width > 256 || cfg.Height > 256 {
			return nil, fmt.Errorf("icon: %dx%d is larger than 256", cfg.Width, cfg.Height)
		}
		// width, height (0 means 256), colours, reserved, planes, bits, size, offset
		_ = binary.Write(&b, le, [4]uint8{uint8(cfg.Width), uint8(cfg.Height), 0, 0})
		_ = binary.Write(&b, le, [2]uint16{1, 32})
		_ = binary.Write(&b, le, [2]uint32{uint32(len(p)), uint32(offset)})
		offset += len(p)
	}
	for _, p := range pngs {
		b.Write(p)
	}
	return b.Bytes(), nil
}
