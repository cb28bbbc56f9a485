package sse

import (
	"bytes"
	"fmt"
	"io"
)

// readLine returns the next line without its terminator and the number of
// raw bytes it consumed (line, terminator and a leading BOM). The line
// aliases the internal buffer and is valid until the next call. At the end
// of the stream it returns io.EOF.
func (r *Reader) readLine() ([]byte, int, error) {
	if err := r.skipBOM(); err != nil {
		return nil, 0, err
	}
	for {
		off := r.start + r.skip
		i := bytes.IndexAny(r.buf[off+r.scanned:r.end], "\r\n")
		if i >= 0 {
			i += r.scanned
		} else {
			r.scanned = r.end - off
		}
		if i > r.maxLine || (i < 0 && r.end-off > r.maxLine) {
			return nil, 0, fmt.Errorf("sse: line exceeds %d bytes: %w", r.maxLine, ErrLineTooLong)
		}
		if i >= 0 {
			n, ok := r.terminatorLen(off + i)
			if ok {
				line := r.buf[off : off+i]
				return line, r.advance(off + i + n), nil
			}
		} else if r.eof {
			if r.end == r.start {
				return nil, 0, io.EOF
			}
			line := r.buf[off:r.end]
			return line, r.advance(r.end), nil
		}
		if err := r.fill(); err != nil {
			return nil, 0, err
		}
	}
}

// terminatorLen returns the length of the line terminator at buf[pos]. It
// reports false when a CR is the last buffered byte and more input is
// needed to know whether an LF follows.
func (r *Reader) terminatorLen(pos int) (int, bool) {
	if r.buf[pos] == '\n' {
		return 1, true
	}
	if pos+1 < r.end {
		if r.buf[pos+1] == '\n' {
			return 2, true
		}
		return 1, true
	}
	return 1, r.eof
}

// advance moves the read position to next and returns how many raw bytes
// were consumed since the previous position.
func (r *Reader) advance(next int) int {
	n := next - r.start
	r.start = next
	r.skip = 0
	r.scanned = 0
	return n
}

// skipBOM detects a UTF-8 byte order mark at the very start of the stream.
func (r *Reader) skipBOM() error {
	for !r.bomDone {
		if r.end-r.start >= len(bom) || r.eof {
			r.bomDone = true
			if bytes.HasPrefix(r.buf[r.start:r.end], bom) {
				r.skip = len(bom)
			}
			return nil
		}
		if !bytes.HasPrefix(bom, r.buf[r.start:r.end]) {
			r.bomDone = true
			return nil
		}
		if err := r.fill(); err != nil {
			return err
		}
	}
	return nil
}

// fill reads more input into the buffer, compacting and growing it as
// needed. It sets r.eof at the end of the input.
func (r *Reader) fill() error {
	if r.start > 0 {
		copy(r.buf, r.buf[r.start:r.end])
		r.end -= r.start
		r.start = 0
	}
	if r.end == len(r.buf) {
		if err := r.grow(); err != nil {
			return err
		}
	}
	for range 100 {
		n, err := r.src.Read(r.buf[r.end:])
		if n > 0 {
			r.end += n
		}
		if err == io.EOF {
			r.eof = true
			return nil
		}
		if err != nil {
			return err
		}
		if n > 0 {
			return nil
		}
	}
	return io.ErrNoProgress
}

// grow enlarges the buffer, never beyond what the line limit needs.
func (r *Reader) grow() error {
	limit := r.maxLine + len(bom) + 2
	size := max(2*len(r.buf), initialBufSize)
	size = min(size, limit)
	if size <= len(r.buf) {
		return fmt.Errorf("sse: line exceeds %d bytes: %w", r.maxLine, ErrLineTooLong)
	}
	nb := make([]byte, size)
	copy(nb, r.buf[:r.end])
	r.buf = nb
	return nil
}
