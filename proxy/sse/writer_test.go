package sse

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAppendEvent(t *testing.T) {
	tests := []struct {
		name  string
		event string
		data  string
		want  string
	}{
		{"simple", "message_start", `{"a":1}`, "event: message_start\ndata: {\"a\":1}\n\n"},
		{"no event name", "", "[DONE]", "data: [DONE]\n\n"},
		{"multi line data", "x", "a\nb\r\nc\rd", "event: x\ndata: a\ndata: b\ndata: c\ndata: d\n\n"},
		{"empty data", "ping", "", "event: ping\ndata:\n\n"},
		{"empty middle line", "", "a\n\nb", "data: a\ndata:\ndata: b\n\n"},
		{"leading space kept", "", " a", "data:  a\n\n"},
		{"newline in name removed", "a\nb\r", "x", "event: ab\ndata: x\n\n"},
		{"trailing newline", "", "a\n", "data: a\ndata:\n\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(AppendEvent([]byte("prefix|"), tt.event, []byte(tt.data)))
			if diff := cmp.Diff("prefix|"+tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestWriteEvent(t *testing.T) {
	var buf bytes.Buffer
	ev := Event{Event: "e", Data: []byte("d1\nd2"), ID: "4\n2\x00", Retry: 30}
	if err := WriteEvent(&buf, ev); err != nil {
		t.Fatal(err)
	}
	want := "id: 42\nretry: 30\nevent: e\ndata: d1\ndata: d2\n\n"
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	got, err := NewReader(&buf).Next()
	if err != nil {
		t.Fatal(err)
	}
	wantEv := Event{Event: "e", Data: []byte("d1\nd2"), ID: "42", Retry: 30, Raw: []byte(want)}
	if diff := cmp.Diff(wantEv, got); diff != "" {
		t.Errorf("read back (-want +got):\n%s", diff)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("closed") }

func TestWriteEventError(t *testing.T) {
	if err := WriteEvent(failWriter{}, Event{Data: []byte("x")}); err == nil || !strings.Contains(err.Error(), "write event") {
		t.Errorf("err = %v", err)
	}
}

func TestAppendComment(t *testing.T) {
	got := string(AppendComment(nil, "keep-alive\nx"))
	if got != ": keep-alive\n: x\n\n" {
		t.Errorf("got %q", got)
	}
	evs, err := readAll(NewReader(strings.NewReader(got + "data: y\n\n")))
	if err != io.EOF || len(evs) != 1 || string(evs[0].Data) != "y" {
		t.Errorf("events = %+v, err = %v", evs, err)
	}
}
