package tray

import (
	"bytes"
	"encoding/binary"
	"image/png"
	"testing"

	"github.com/metaclaw/metaclaw/assets"
)

// TestWindowsIcon reads back the .ico made for Windows: a directory of
// three PNG images, 16, 32 and 64 pixels, each where its entry says.
func TestWindowsIcon(t *testing.T) {
	t.Parallel()
	for _, state := range []string{assets.StateLearning, assets.StatePaused, assets.StateTraining, assets.StateAttention} {
		data, err := iconFor(state, "windows")
		if err != nil {
			t.Fatal(err)
		}
		le := binary.LittleEndian
		if le.Uint16(data[0:]) != 0 || le.Uint16(data[2:]) != 1 || le.Uint16(data[4:]) != 3 {
			t.Fatalf("%s: bad .ico header % x", state, data[:6])
		}
		for i, want := range []int{16, 32, 64} {
			e := data[6+16*i:]
			size, offset := le.Uint32(e[8:]), le.Uint32(e[12:])
			if int(e[0]) != want || int(e[1]) != want || le.Uint16(e[6:]) != 32 {
				t.Errorf("%s entry %d: % x, want %dx%d at 32 bits", state, i, e[:8], want, want)
			}
			img, err := png.Decode(bytes.NewReader(data[offset : offset+size]))
			if err != nil {
				t.Fatalf("%s entry %d: %v", state, i, err)
			}
			if b := img.Bounds(); b.Dx() != want || b.Dy() != want {
				t.Errorf("%s entry %d is %v, want %d pixels", state, i, b, want)
			}
		}
	}
}

func TestICOInput(t *testing.T) {
	t.Parallel()
	big, err := assets.Icon(assets.StateLearning, 256)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ico([][]byte{big}); err != nil {
		t.Errorf("256 pixels: %v", err)
	}
	if _, err := ico([][]byte{[]byte("not a png")}); err == nil {
		t.Error("accepted bytes that are not an image")
	}
}
