package fakeupstream

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// benchPost measures full round trips of body to path over keep-alive
// connections.
func benchPost(b *testing.B, path, body string, header map[string]string) {
	s := New()
	s.SetRecording(false)
	s.SetDefault(Reply{Text: strings.Repeat("The quick brown fox jumps over the lazy dog. ", 20), ChunkSize: 16})
	base, err := s.Start()
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req, _ := http.NewRequest(http.MethodPost, base+path, strings.NewReader(body))
			for k, v := range header {
				req.Header.Set(k, v)
			}
			resp, err := client.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	})
}

func BenchmarkChatNonStreaming(b *testing.B) {
	benchPost(b, "/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, nil)
}

func BenchmarkChatStreaming(b *testing.B) {
	benchPost(b, "/v1/chat/completions", `{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[]}`, nil)
}

func BenchmarkMessagesStreaming(b *testing.B) {
	benchPost(b, "/v1/messages", `{"model":"c","stream":true,"max_tokens":10,"messages":[]}`,
		map[string]string{"anthropic-version": "2023-06-01"})
}
