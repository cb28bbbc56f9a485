package idle

import "image"

// The screen-activity fallback compares tiny grey thumbnails of
// successive frames. Each of the 64x36 cells holds the mean luma of its
// box of pixels (30x30 pixels at 1920x1080, 20x20 at 1280x720), so a
// frame shrinks to 2,304 bytes that cannot be read back into text.
//
// A frame counts as activity when at least minChangedCells cells moved by
// more than cellDelta grey levels since the previous frame. Hashing a
// coarsely quantised thumbnail, the obvious alternative, says only
// "equal" or "not equal": one grey level of noise across a bin edge flips
// the hash, and so does the panel clock every minute. Comparing cells
// with a tolerance avoids both, and comparing 2 KB is cheaper than
// hashing it would be to matter.
//
// What the thresholds ignore, at 1280x720 (cells of 400 pixels; larger
// screens have larger cells, so the same things move a cell less):
//   - a blinking 2x16 text cursor: at most 32 pixels, a shift of 20 < 24;
//   - the panel clock ticking: its digits sit in one or two cells < 3;
//   - dithering, compression and sub-pixel noise of a few levels.
//
// What they count: a typed word (a few cells each moving by about 50), a
// scrolled page, a window opened, moved or switched, a playing video
// (read as presence, which is the safe mistake for a scheduler that
// trains only while the person is away).
const (
	thumbW     = 64
	thumbH     = 36
	thumbCells = thumbW * thumbH
	// cellDelta is how many grey levels (of 255) a cell's mean must move
	// to count as changed.
	cellDelta = 24
	// minChangedCells is how many changed cells make a frame count as
	// activity.
	minChangedCells = 3
)

// thumb is a frame shrunk to thumbW x thumbH mean grey levels, with the
// frame's size so that a resolution change counts as a change.
type thumb struct {
	size image.Point
	grey [thumbCells]uint8
}

// makeThumb box-averages img into a thumbnail, in one pass over its
// pixels. Cells that receive no pixel (frames narrower than thumbW) stay
// 0 in every frame and never count as changed.
func makeThumb(img image.Image) thumb {
	b := img.Bounds()
	t := thumb{size: b.Size()}
	if b.Empty() {
		return t
	}
	var sum [thumbCells]uint64
	var n [thumbCells]uint32
	cols := make([]int, b.Dx()) // the cell column of each pixel column
	for x := range cols {
		cols[x] = x * thumbW / b.Dx()
	}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		row := (y - b.Min.Y) * thumbH / b.Dy() * thumbW
		addRow(img, b.Min.X, y, cols, sum[row:row+thumbW], n[row:row+thumbW])
	}
	for i := range sum {
		if n[i] > 0 {
			t.grey[i] = uint8(sum[i] / uint64(n[i]))
		}
	}
	return t
}

// addRow adds the luma of pixel row y, starting at x0, to the sums and
// counts of one row of cells.
func addRow(img image.Image, x0, y int, cols []int, sum []uint64, n []uint32) {
	if rgba, ok := img.(*image.RGBA); ok { // what screenshot returns
		off := rgba.PixOffset(x0, y)
		p := rgba.Pix[off : off+4*len(cols)]
		for i, c := range cols {
			sum[c] += uint64(luma8(p[4*i], p[4*i+1], p[4*i+2]))
			n[c]++
		}
		return
	}
	for i, c := range cols {
		r, g, b, _ := img.At(x0+i, y).RGBA()
		sum[c] += uint64(luma8(uint8(r>>8), uint8(g>>8), uint8(b>>8)))
		n[c]++
	}
}

// luma8 is the Rec. 601 luma of an 8-bit colour, with image/color's
// integer weights.
func luma8(r, g, b uint8) uint8 {
	return uint8((19595*uint32(r) + 38470*uint32(g) + 7471*uint32(b) + 1<<15) >> 16)
}

// changedCells counts the cells whose grey level moved by more than
// cellDelta from prev; a different frame size changes every cell.
func (t *thumb) changedCells(prev *thumb) int {
	if t.size != prev.size {
		return thumbCells
	}
	changed := 0
	for i, g := range t.grey {
		d := int(g) - int(prev.grey[i])
		if d > cellDelta || d < -cellDelta {
			changed++
		}
	}
	return changed
}
