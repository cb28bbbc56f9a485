package sse

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// AppendEvent appends one event to dst and returns the extended slice. The
// event line is written only when event is not empty; CR and LF characters
// in event, which cannot be represented, are removed. Data is split on
// "\r\n", "\r" and "\n" into one "data:" line per line, so a Reader returns
// it with every line ending normalised to "\n". At least one data line is
// always written so the event is dispatched even when data is empty. The
// event ends with a blank line.
func AppendEvent(dst []byte, event string, data []byte) []byte {
	if event != "" {
		dst = appendField(dst, "event", event)
	}
	return appendData(dst, data)
}

// WriteEvent writes ev to w in the same format as AppendEvent, preceded by
// "id:" (when ev.ID is set; CR, LF and NUL are removed) and "retry:" (when
// ev.Retry > 0) lines. ev.Raw is ignored: relays that want to forward an
// event untouched write ev.Raw directly.
func WriteEvent(w io.Writer, ev Event) error {
	var buf []byte
	if ev.ID != "" {
		buf = appendField(buf, "id", strings.ReplaceAll(ev.ID, "\x00", ""))
	}
	if ev.Retry > 0 {
		buf = append(buf, "retry: "...)
		buf = strconv.AppendInt(buf, int64(ev.Retry), 10)
		buf = append(buf, '\n')
	}
	buf = AppendEvent(buf, ev.Event, ev.Data)
	if _, err := w.Write(buf); err != nil {
		return fmt.Errorf("write event: %w", err)
	}
	return nil
}

// AppendComment appends a comment block (": text" lines followed by a blank
// line) to dst. Readers ignore comments; they are useful as keep-alives.
func AppendComment(dst []byte, text string) []byte {
	for _, line := range splitLines([]byte(text)) {
		dst = append(dst, ':')
		if len(line) > 0 {
			dst = append(dst, ' ')
			dst = append(dst, line...)
		}
		dst = append(dst, '\n')
	}
	return append(dst, '\n')
}

// appendField appends "name: value\n" with CR and LF removed from value.
func appendField(dst []byte, name, value string) []byte {
	dst = append(dst, name...)
	dst = append(dst, ':', ' ')
	for i := 0; i < len(value); i++ {
		if c := value[i]; c != '\r' && c != '\n' {
			dst = append(dst, c)
		}
	}
	return append(dst, '\n')
}

// appendData appends the data lines and the terminating blank line.
func appendData(dst, data []byte) []byte {
	for _, line := range splitLines(data) {
		dst = append(dst, "data:"...)
		if len(line) > 0 {
			dst = append(dst, ' ')
			dst = append(dst, line...)
		}
		dst = append(dst, '\n')
	}
	return append(dst, '\n')
}

// splitLines splits b on "\r\n", "\r" and "\n". It always returns at least
// one (possibly empty) line.
func splitLines(b []byte) [][]byte {
	var lines [][]byte
	for {
		i := bytes.IndexAny(b, "\r\n")
		if i < 0 {
			return append(lines, b)
		}
		lines = append(lines, b[:i])
		if b[i] == '\r' && i+1 < len(b) && b[i+1] == '\n' {
			i++
		}
		b = b[i+1:]
	}
}
